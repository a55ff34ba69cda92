import { api } from '../api/client';
import type {
  BrandAsset,
  CreateApiTokenResponse,
  CreateOidcClientResponse,
  CreateSectorBody,
  CreateUserBody,
  DeleteRoleResponse,
  DeleteOidcClientResponse,
  GetTenantResponse,
  ListApiTokensResponse,
  ListOidcClientsResponse,
  ListRolesResponse,
  ListSectorsResponse,
  ListTenantsResponse,
  ListUsersResponse,
  OAuthProviderInput,
  OAuthProvidersResponse,
  OidcClient,
  OidcClientInput,
  ProvisionTenantBody,
  ProvisionTenantResponse,
  PutRoleBody,
  ResendInviteResponse,
  RevokeApiTokenResponse,
  RotateOidcClientSecretResponse,
  Sector,
  SectorRole,
  SectorSettings,
  SetUserRolesBody,
  StatusResponse,
  TemplatePreview,
  TemplatePreviewBody,
  UpdateOAuthProvidersBody,
  UpdateSectorSettingsBody,
  UpdateUserBody,
  UpdateUserResponse,
  UserProfile,
  UserRef,
  UserRoles,
  CreateWebhookBody,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  ListWebhookDeliveriesResponse,
  ListWebhooksResponse,
  RotateWebhookSecretResponse,
  TestWebhookResponse,
  UpdateWebhookBody,
  Webhook,
  WebhookDeliveryStatus,
} from './types';
import { queryOf } from './util';

/** The admin routes of the public API (docs/api.md, Endpoints), typed. Nothing here bypasses the API. */

const enc = encodeURIComponent;

export const tenantsApi = {
  list: (q: { page: number; pageSize: number; searchTerm: string }) =>
    api.get<ListTenantsResponse>('/api/v1/tenants', queryOf({ page: q.page, pageSize: q.pageSize, searchTerm: q.searchTerm || undefined })),
  provision: (body: ProvisionTenantBody) => api.post<ProvisionTenantResponse>('/api/v1/tenants', body),
  read: (tenantID: string, opts: { ping: boolean; includeStats: boolean }) =>
    api.get<GetTenantResponse>(`/api/v1/tenants/${enc(tenantID)}`, queryOf({ ping: opts.ping || undefined, includeStats: opts.includeStats || undefined })),
};

export interface SectorQuery {
  page: number;
  pageSize: number;
  searchTerm?: string;
  filterDomain?: string;
}

export const sectorsApi = {
  list: (q: SectorQuery) => api.get<ListSectorsResponse>('/api/v1/sectors', queryOf({ ...q })),
  create: (body: CreateSectorBody) => api.post<Sector>('/api/v1/sectors', body),
};

export const settingsApi = {
  read: (sectorID: string) => api.get<SectorSettings>(`/api/v1/sectors/${enc(sectorID)}/settings`),
  update: (sectorID: string, body: UpdateSectorSettingsBody) => api.put<SectorSettings>(`/api/v1/sectors/${enc(sectorID)}/settings`, body),
  /** Renders a message with sample values (absent templates: the sector's stored ones, or the built-in defaults). */
  preview: (sectorID: string, body: TemplatePreviewBody) => api.post<TemplatePreview>(`/api/v1/sectors/${enc(sectorID)}/templates/preview`, body),
  /** Uploads the sector's logo or favicon (the image's bytes, base64). */
  uploadImage: (sectorID: string, asset: 'logo' | 'favicon', data: string) => api.put<BrandAsset>(`/api/v1/sectors/${enc(sectorID)}/branding/${asset}`, { data }),
  removeImage: (sectorID: string, asset: 'logo' | 'favicon') => api.del<Record<string, never>>(`/api/v1/sectors/${enc(sectorID)}/branding/${asset}`),
};

export type UserSort = 'name' | 'email' | 'created_at' | 'updated_at';

export interface UserQuery {
  page: number;
  pageSize: number;
  searchTerm?: string;
  filterEmail?: string;
  filterVerified?: 'true' | 'false';
  /** 'true': disabled users only; 'false': enabled users only. */
  filterDisabled?: 'true' | 'false';
  /** Users holding the role of this name only. */
  filterRole?: string;
  sortBy?: UserSort;
  sortDesc?: boolean;
}

export const usersApi = {
  list: (sectorID: string, q: UserQuery) => api.get<ListUsersResponse>(`/api/v1/sectors/${enc(sectorID)}/users`, queryOf({ ...q, sortDesc: q.sortDesc || undefined })),
  create: (sectorID: string, body: CreateUserBody) => api.post<UserProfile>(`/api/v1/sectors/${enc(sectorID)}/users`, body),
  read: (sub: string) => api.get<UserProfile>(`/api/v1/users/${enc(sub)}`),
  update: (sub: string, body: UpdateUserBody) => api.put<UpdateUserResponse>(`/api/v1/users/${enc(sub)}`, body),
  remove: (sub: string) => api.del<UserRef>(`/api/v1/users/${enc(sub)}`),
  resendInvite: (sub: string) => api.post<ResendInviteResponse>(`/api/v1/users/${enc(sub)}/invite`),
};

export const tokensApi = {
  list: (sectorID: string) => api.get<ListApiTokensResponse>(`/api/v1/sectors/${enc(sectorID)}/tokens`),
  create: (sectorID: string, name: string) => api.post<CreateApiTokenResponse>(`/api/v1/sectors/${enc(sectorID)}/tokens`, { name }),
  revoke: (sectorID: string, id: string) => api.del<RevokeApiTokenResponse>(`/api/v1/sectors/${enc(sectorID)}/tokens/${enc(id)}`),
};

export const oauthApi = {
  read: (sectorID: string) => api.get<OAuthProvidersResponse>(`/api/v1/sectors/${enc(sectorID)}/oauth/providers`),
  update: (sectorID: string, providers: Record<string, OAuthProviderInput>) =>
    api.put<StatusResponse>(`/api/v1/sectors/${enc(sectorID)}/oauth/providers`, { providers } satisfies UpdateOAuthProvidersBody),
};

/** The apps of the sector's OpenID Provider (a secret is in the create and rotate answers only). */
export const oidcClientsApi = {
  list: (sectorID: string) => api.get<ListOidcClientsResponse>(`/api/v1/sectors/${enc(sectorID)}/oidc/clients`),
  read: (sectorID: string, clientID: string) => api.get<OidcClient>(`/api/v1/sectors/${enc(sectorID)}/oidc/clients/${enc(clientID)}`),
  create: (sectorID: string, body: OidcClientInput) => api.post<CreateOidcClientResponse>(`/api/v1/sectors/${enc(sectorID)}/oidc/clients`, body),
  /** A full replacement: absent optional fields are cleared. */
  update: (sectorID: string, clientID: string, body: OidcClientInput) => api.put<OidcClient>(`/api/v1/sectors/${enc(sectorID)}/oidc/clients/${enc(clientID)}`, body),
  rotateSecret: (sectorID: string, clientID: string) =>
    api.post<RotateOidcClientSecretResponse>(`/api/v1/sectors/${enc(sectorID)}/oidc/clients/${enc(clientID)}/rotate-secret`),
  remove: (sectorID: string, clientID: string) => api.del<DeleteOidcClientResponse>(`/api/v1/sectors/${enc(sectorID)}/oidc/clients/${enc(clientID)}`),
};

/** The sector's roles (named sets of permission strings) and who holds them. */
export const rolesApi = {
  list: (sectorID: string) => api.get<ListRolesResponse>(`/api/v1/sectors/${enc(sectorID)}/roles`),
  /** Creates the role or replaces its description and permissions (absent fields become empty). */
  put: (sectorID: string, name: string, body: PutRoleBody) => api.put<SectorRole>(`/api/v1/sectors/${enc(sectorID)}/roles/${enc(name)}`, body),
  /** Every holder loses it at once. */
  remove: (sectorID: string, name: string) => api.del<DeleteRoleResponse>(`/api/v1/sectors/${enc(sectorID)}/roles/${enc(name)}`),
  ofUser: (sub: string) => api.get<UserRoles>(`/api/v1/users/${enc(sub)}/roles`),
  /** The user holds exactly these afterwards (never one's own account). */
  setForUser: (sub: string, roles: string[]) => api.put<UserRoles>(`/api/v1/users/${enc(sub)}/roles`, { roles } satisfies SetUserRolesBody),
};

export interface DeliveryQuery {
  status?: WebhookDeliveryStatus;
  /** The `nextCursor` of the previous page; absent: the newest. */
  cursor?: string;
  pageSize?: number;
}

/** The sector's webhooks (signed-in admins only; a secret is in the create and rotate answers only) and their delivery logs. */
export const webhooksApi = {
  list: (sectorID: string) => api.get<ListWebhooksResponse>(`/api/v1/sectors/${enc(sectorID)}/webhooks`),
  create: (sectorID: string, body: CreateWebhookBody) => api.post<CreateWebhookResponse>(`/api/v1/sectors/${enc(sectorID)}/webhooks`, body),
  /** A merge: fields left out keep their values. */
  update: (sectorID: string, id: string, body: UpdateWebhookBody) => api.put<Webhook>(`/api/v1/sectors/${enc(sectorID)}/webhooks/${enc(id)}`, body),
  remove: (sectorID: string, id: string) => api.del<DeleteWebhookResponse>(`/api/v1/sectors/${enc(sectorID)}/webhooks/${enc(id)}`),
  /** The previous secret keeps signing beside the new one for 24 hours. */
  rotateSecret: (sectorID: string, id: string) => api.post<RotateWebhookSecretResponse>(`/api/v1/sectors/${enc(sectorID)}/webhooks/${enc(id)}/rotate-secret`),
  /** Queues a webhook.test event for this endpoint alone (even while disabled). */
  test: (sectorID: string, id: string) => api.post<TestWebhookResponse>(`/api/v1/sectors/${enc(sectorID)}/webhooks/${enc(id)}/test`),
  deliveries: (sectorID: string, id: string, q: DeliveryQuery) =>
    api.get<ListWebhookDeliveriesResponse>(`/api/v1/sectors/${enc(sectorID)}/webhooks/${enc(id)}/deliveries`, queryOf({ ...q })),
};
