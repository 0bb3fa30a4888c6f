import { Code, Stack, Text } from '@mantine/core';
import { parseMarkdown } from './markdown';

/** An answer's text, its paragraphs and code as elements: the model's words are never markup. */
export function Markdown({ text }: { text: string }) {
  return (
    <Stack gap="xs">
      {parseMarkdown(text).map((block, i) =>
        block.kind === 'code' ? (
          <Code key={i} block>
            <code>{block.code}</code>
          </Code>
        ) : (
          <Text key={i} size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {block.spans.map((span, j) =>
              span.kind === 'code' ? <Code key={j}>{span.text}</Code> : span.text,
            )}
          </Text>
        ),
      )}
    </Stack>
  );
}
