import { RevisionedStore, type Backend } from '../../backend/index.js';
import { ApiError } from '../../errors.js';
import type { LoginRule } from './login-rule.js';

/** Login rules live under `/login_rules/<name>`. */
export const loginRulesPrefix = '/login_rules/';

export const loginRuleNotFound = (name: string) =>
  new ApiError('not_found', `login rule ${name} not found`);

/** The stored value carries no revision: reads put the backend's into `metadata.revision`. */
export class LoginRulesStore {
  private readonly store: RevisionedStore<LoginRule, string>;

  constructor(backend: Backend) {
    this.store = new RevisionedStore(backend, {
      prefix: loginRulesPrefix,
      keyOf: (name) => name,
      refOf: (rule) => rule.metadata.name,
      revisionInMetadata: true,
      errors: {
        notFound: loginRuleNotFound,
        alreadyExists: (name) =>
          new ApiError(
            'already_exists',
            `login rule ${name} already exists: pass --force to overwrite`,
          ),
        changedMeanwhile: (name) =>
          new ApiError(
            'compare_failed',
            `login rule ${name} was changed by someone else meanwhile`,
          ),
      },
    });
  }

  get(name: string): Promise<LoginRule | null> {
    return this.store.get(name);
  }

  list(): Promise<LoginRule[]> {
    return this.store.list('');
  }

  create(rule: LoginRule): Promise<LoginRule> {
    return this.store.create(rule);
  }

  /** Writes whatever is stored (`create -f --force`). */
  overwrite(rule: LoginRule): Promise<LoginRule> {
    return this.store.update(rule, undefined);
  }

  delete(name: string): Promise<void> {
    return this.store.delete(name);
  }
}
