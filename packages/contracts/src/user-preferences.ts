import { z } from 'zod';
import { includedResourceModes, unifiedResourceKinds } from './unified-resources.js';

/**
 * A user's console preferences, kept on the server so they follow the user from browser to
 * browser (reference: `/v1/webapi/user/preferences`). The theme and the terminal's settings stay
 * in the browser (spec §9's local storage keys); what is kept here is how the Resources page
 * opens, and, per cluster, the resources the user pinned.
 */

/** Which list the Resources page opens on: everything, or only what the user pinned. */
export const resourcesTabs = ['all', 'pinned'] as const;
export type ResourcesTab = (typeof resourcesTabs)[number];

const unifiedResourcePreferencesShape = {
  defaultTab: z.enum(resourcesTabs),
  includedResourceMode: z.enum(includedResourceModes),
};
export const unifiedResourcePreferencesSchema = z.strictObject(unifiedResourcePreferencesShape);
export type UnifiedResourcePreferences = z.infer<typeof unifiedResourcePreferencesSchema>;

/** At most this many pins per cluster: a pin is a shortcut, not an inventory. */
export const maxPinnedResources = 500;

/**
 * A pinned resource's id: its kind and its key in that kind (a server's id, any other resource's
 * name), as `unifiedResourceId` gives it.
 */
export const pinnedResourceIdSchema = z
  .string()
  .max(300)
  .refine(
    (id) => {
      const slash = id.indexOf('/');
      const kind = id.slice(0, slash);
      return (
        slash > 0 &&
        slash < id.length - 1 &&
        (unifiedResourceKinds as readonly string[]).includes(kind)
      );
    },
    { message: `expected <kind>/<name>, where kind is one of: ${unifiedResourceKinds.join(', ')}` },
  );

export const clusterPreferencesSchema = z.strictObject({
  pinnedResources: z.strictObject({
    resourceIds: z
      .array(pinnedResourceIdSchema)
      .max(maxPinnedResources, `at most ${maxPinnedResources} pinned resources`)
      .transform((ids) => [...new Set(ids)]),
  }),
});
export type ClusterPreferences = z.infer<typeof clusterPreferencesSchema>;

export const userPreferencesSchema = z.strictObject({
  unifiedResourcePreferences: unifiedResourcePreferencesSchema,
});
export type UserPreferences = z.infer<typeof userPreferencesSchema>;

/** `PUT /user/preferences`: the parts given replace the stored ones; the rest stay. */
export const updateUserPreferencesSchema = z.strictObject({
  unifiedResourcePreferences: z.strictObject(unifiedResourcePreferencesShape).partial().optional(),
});
export type UpdateUserPreferences = z.input<typeof updateUserPreferencesSchema>;

/** What a user who never chose anything gets. */
export const defaultUserPreferences: UserPreferences = {
  unifiedResourcePreferences: { defaultTab: 'all', includedResourceMode: 'accessible' },
};
export const defaultClusterPreferences: ClusterPreferences = {
  pinnedResources: { resourceIds: [] },
};
