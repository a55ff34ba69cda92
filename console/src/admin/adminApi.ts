import { api } from '../api/client';
import type {
  ApiToken,
  CreateApiTokenResponse,
  GetTenantResponse,
  ListSectorsResponse,
  ListUsersResponse,
  OAuthProviderInput,
  OAuthProviderView,
  ProvisionTenantResponse,
  Sector,
  SectorSettings,
  UserProfile,
  ListTenantsResponse,
} from './types';
import { queryOf } from './util';

/** The admin routes of the public API (docs/api.md, Endpoints), typed. Nothing here bypasses the API. */

const enc = encodeURIComponent;

export const tenantsApi = {
  list: (q: { page: number; pageSize: number; searchTerm: string }) =>
    api.get<ListTenantsResponse>('/api/v1/tenants', queryOf({ page: q.page, pageSize: q.pageSize, searchTerm: q.searchTerm || undefined })),
  provision: (body: { slug: string; name: string; adminEmail?: string; adminPassword?: string }) => api.post<ProvisionTenantResponse>('/api/v1/tenants', body),
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
  create: (body: { name: string; slug: string; domain?: string; allowedOrigins?: string[] }) => api.post<Sector>('/api/v1/sectors', body),
};

export const settingsApi = {
  read: (sectorID: string) => api.get<SectorSettings>(`/api/v1/sectors/${enc(sectorID)}/settings`),
  update: (sectorID: string, body: Partial<SectorSettings>) => api.put<SectorSettings>(`/api/v1/sectors/${enc(sectorID)}/settings`, body),
};

export type UserSort = 'name' | 'email' | 'created_at' | 'updated_at';

export interface UserQuery {
  page: number;
  pageSize: number;
  searchTerm?: string;
  filterEmail?: string;
  filterVerified?: 'true' | 'false';
  sortBy?: UserSort;
  sortDesc?: boolean;
}

export interface CreateUserBody {
  email: string;
  username?: string;
  password?: string;
  profile?: Partial<Omit<UserProfile, 'sub' | 'createdAt' | 'updatedAt'>>;
  isAdmin?: boolean;
}

export const usersApi = {
  list: (sectorID: string, q: UserQuery) => api.get<ListUsersResponse>(`/api/v1/sectors/${enc(sectorID)}/users`, queryOf({ ...q, sortDesc: q.sortDesc || undefined })),
  create: (sectorID: string, body: CreateUserBody) => api.post<UserProfile>(`/api/v1/sectors/${enc(sectorID)}/users`, body),
  read: (sub: string) => api.get<UserProfile>(`/api/v1/users/${enc(sub)}`),
  update: (sub: string, body: { profile?: Partial<UserProfile>; isAdmin?: boolean; setAdminExplicitly?: boolean }) =>
    api.put<{ sub: string; username: string; sectorID: string }>(`/api/v1/users/${enc(sub)}`, body),
  remove: (sub: string) => api.del<{ sub: string }>(`/api/v1/users/${enc(sub)}`),
  resendInvite: (sub: string) => api.post<{ sub: string; inviteStatus: string; inviteExpiresAt: string }>(`/api/v1/users/${enc(sub)}/invite`),
};

export const tokensApi = {
  list: (sectorID: string) => api.get<{ apiTokens: ApiToken[] }>(`/api/v1/sectors/${enc(sectorID)}/tokens`),
  create: (sectorID: string, name: string) => api.post<CreateApiTokenResponse>(`/api/v1/sectors/${enc(sectorID)}/tokens`, { name }),
  revoke: (sectorID: string, id: string) => api.del<{ id: string }>(`/api/v1/sectors/${enc(sectorID)}/tokens/${enc(id)}`),
};

export const oauthApi = {
  read: (sectorID: string) => api.get<{ providers: Record<string, OAuthProviderView> }>(`/api/v1/sectors/${enc(sectorID)}/oauth/providers`),
  update: (sectorID: string, providers: Record<string, OAuthProviderInput>) =>
    api.put<{ status: string; message: string }>(`/api/v1/sectors/${enc(sectorID)}/oauth/providers`, { providers }),
};
