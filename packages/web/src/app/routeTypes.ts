/**
 * Type-level parsing of route patterns, so `routePath('player', {clusterId, sid})` is checked
 * at compile time against the pattern string itself.
 */
type Segments<P extends string> = P extends `${infer Head}/${infer Rest}`
  ? Head | Segments<Rest>
  : P;

type RequiredName<S> = S extends `:${infer Name}`
  ? Name extends `${string}?`
    ? never
    : Name
  : never;
type OptionalName<S> = S extends `:${infer Name}?` ? Name : never;

/** The names of a pattern's required parameters (never when it has none). */
export type RequiredParamName<P extends string> = RequiredName<Segments<P>>;

export type RouteParams<P extends string> = {
  [K in RequiredParamName<P>]: string;
} & {
  [K in OptionalName<Segments<P>>]?: string;
};

export type RouteQuery = Record<string, string | number | undefined>;
