import { apiPaths, roleItemSchema, type RoleItem } from '@postern/contracts';
import { api, decode } from '../../api';

/** Manage Roles calls (spec §7 `/roles/{name?}`): items carry the role as YAML in `content`. */

export async function fetchRoles(signal?: AbortSignal): Promise<RoleItem[]> {
  const items = decode(
    roleItemSchema.array(),
    await api.get(apiPaths.roles, { signal }),
    apiPaths.roles,
  );
  return items.sort((a, b) => a.name.localeCompare(b.name));
}

export async function fetchRole(name: string, signal?: AbortSignal): Promise<RoleItem> {
  const url = apiPaths.role(name);
  return decode(roleItemSchema, await api.get(url, { signal }), url);
}

/** `POST /roles`: a new role; 409 when the name exists. */
export async function createRole(content: string): Promise<RoleItem> {
  return decode(roleItemSchema, await api.post(apiPaths.roles, { content }), apiPaths.roles);
}

/** `PUT /roles/{name}`: saves over the revision the YAML carries; 409 when it moved on. */
export async function updateRole(name: string, content: string): Promise<RoleItem> {
  const url = apiPaths.role(name);
  return decode(roleItemSchema, await api.put(url, { content }), url);
}

export async function deleteRole(name: string): Promise<void> {
  await api.delete(apiPaths.role(name));
}
