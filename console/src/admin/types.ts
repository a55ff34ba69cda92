/** Response and request shapes of the admin routes, from the OpenAPI document (../api/schema.d.ts, generated). */
import type { Schemas } from '../api/types';

export type Sector = Schemas['SectorResponse'];
export type CreateSectorBody = Schemas['CreateSectorDto'];
export type ListSectorsResponse = Schemas['ListSectorsResponse'];

export type ProvisionTenantBody = Schemas['ProvisionTenantDto'];
export type ProvisionTenantResponse = Schemas['ProvisionTenantResponse'];
export type TenantListItem = Schemas['TenantListItem'];
export type ListTenantsResponse = Schemas['ListTenantsResponse'];
export type GetTenantResponse = Schemas['GetTenantResponse'];

export type SectorSettings = Schemas['SectorSettingsResponse'];
export type UpdateSectorSettingsBody = Schemas['UpdateSectorSettingsDto'];
export type TemplatePreviewBody = Schemas['PreviewTemplateDto'];
export type TemplatePreview = Schemas['TemplatePreviewResponse'];
export type MessageKind = TemplatePreviewBody['kind'];

export type UserListItem = Schemas['UserListItem'];
export type ListUsersResponse = Schemas['ListUsersResponse'];
export type CreateUserBody = Schemas['CreateUserDto'];
export type UpdateUserBody = Schemas['UpdateUserDto'];
export type UpdateUserResponse = Schemas['UpdateUserResponse'];
export type UserRef = Schemas['UserRefResponse'];
export type ResendInviteResponse = Schemas['ResendInviteResponse'];

export type { UserProfile } from '../api/types';

export type ApiToken = Schemas['ApiTokenResponse'];
export type CreateApiTokenResponse = Schemas['CreateApiTokenResponse'];
export type ListApiTokensResponse = Schemas['ListApiTokensResponse'];
export type RevokeApiTokenResponse = Schemas['RevokeApiTokenResponse'];

export type ProviderName = Schemas['LinkedIdentityResponse']['provider'];

export type OAuthProviderView = Schemas['OAuthProviderView'];
export type OAuthProviderInput = Schemas['OAuthProviderAdminConfig'];
export type OAuthProvidersResponse = Schemas['OAuthProvidersResponse'];
export type UpdateOAuthProvidersBody = Schemas['UpdateOAuthProvidersDto'];
export type StatusResponse = Schemas['StatusResponse'];

export type OidcClient = Schemas['OidcClientResponse'];
export type OidcClientInput = Schemas['OidcClientInput'];
export type OidcGrantType = OidcClient['grantTypes'][number];
export type OidcAuthMethod = OidcClient['tokenEndpointAuthMethod'];
export type ListOidcClientsResponse = Schemas['ListOidcClientsResponse'];
export type CreateOidcClientResponse = Schemas['CreateOidcClientResponse'];
export type RotateOidcClientSecretResponse = Schemas['RotateOidcClientSecretResponse'];
export type DeleteOidcClientResponse = Schemas['DeleteOidcClientResponse'];

export type SectorRole = Schemas['RoleResponse'];
export type ListRolesResponse = Schemas['ListRolesResponse'];
export type PutRoleBody = Schemas['PutRoleDto'];
export type DeleteRoleResponse = Schemas['DeleteRoleResponse'];
export type UserRoles = Schemas['UserRolesResponse'];
export type SetUserRolesBody = Schemas['SetUserRolesDto'];

export type Webhook = Schemas['WebhookResponse'];
export type WebhookEventType = Schemas['WebhookEventType'];
export type ServiceEventType = Schemas['ServiceEventType'];
export type CreateWebhookBody = Schemas['CreateWebhookDto'];
export type CreateWebhookResponse = Schemas['CreateWebhookResponse'];
export type UpdateWebhookBody = Schemas['UpdateWebhookDto'];
export type ListWebhooksResponse = Schemas['ListWebhooksResponse'];
export type DeleteWebhookResponse = Schemas['DeleteWebhookResponse'];
export type RotateWebhookSecretResponse = Schemas['RotateWebhookSecretResponse'];
export type TestWebhookResponse = Schemas['TestWebhookResponse'];
export type WebhookDelivery = Schemas['WebhookDeliveryResponse'];
export type WebhookDeliveryStatus = WebhookDelivery['status'];
export type ListWebhookDeliveriesResponse = Schemas['ListWebhookDeliveriesResponse'];
export type BrandAsset = Schemas['BrandAssetResponse'];
