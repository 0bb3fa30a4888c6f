import { createAccessRequestSchema } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { emptyNewRequestForm, validateNewRequest, type NewRequestForm } from './newRequestForm';

const optional = { type: 'optional', prompt: '' } as const;
const form = (fields: Partial<NewRequestForm>): NewRequestForm => ({
  ...emptyNewRequestForm(['bob']),
  ...fields,
});
const node = { kind: 'node', clusterName: 'localhost', name: 'id-1', title: 'db-1' } as const;

describe('validateNewRequest', () => {
  it('builds a body the contract accepts, reviewers prefilled and split', () => {
    const { errors, body } = validateNewRequest(
      form({ roles: ['dba'], reason: ' rotate ', reviewers: 'bob, carol bob', maxDuration: '4h' }),
      [node],
      optional,
    );
    expect(errors).toEqual({});
    expect(body).toEqual({
      roles: ['dba'],
      resources: [{ kind: 'node', clusterName: 'localhost', name: 'id-1' }],
      reason: 'rotate',
      suggestedReviewers: ['bob', 'carol'],
      maxDuration: '4h',
    });
    expect(createAccessRequestSchema.safeParse(body).success).toBe(true);
  });

  it('needs a role or a resource', () => {
    expect(validateNewRequest(form({}), [], optional).errors).toEqual({
      roles: 'Choose at least one role, or add resources to the request',
    });
  });

  it.each(['reason', 'always'] as const)('needs a reason when the strategy is %s', (type) => {
    const strategy = { type, prompt: 'Ticket number?' };
    expect(validateNewRequest(form({ roles: ['dba'] }), [], strategy).errors).toEqual({
      reason: 'Give a reason for this request',
    });
    expect(
      validateNewRequest(form({ roles: ['dba'], reason: 'T-1' }), [], strategy).body,
    ).toMatchObject({ reason: 'T-1' });
  });

  it('takes no reason when the strategy is optional, and checks the duration', () => {
    expect(validateNewRequest(form({ roles: ['dba'] }), [], optional).errors).toEqual({});
    expect(
      validateNewRequest(form({ roles: ['dba'], maxDuration: 'a day' }), [], optional).errors,
    ).toEqual({ maxDuration: 'Use a duration such as 1h, 4h or 1h30m' });
  });
});
