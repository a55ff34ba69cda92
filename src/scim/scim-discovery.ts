import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './scim-user-query';
import { MAX_RESULTS } from './scim-resources';

/** The discovery documents of a sector's SCIM service provider (RFC 7644 §4, RFC 7643 §5–7). */

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(base: string): Record<string, unknown> {
  return {
    schemas: [SPC_SCHEMA],
    documentationUri: `${base.replace(/\/scim\/v2\/[^/]+$/, '')}/api/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'API token',
        description: 'An API token of this sector, as Authorization: Bearer iam_…',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string): Array<Record<string, unknown>> {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A user of the sector',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: "A group: one of the sector's roles, its members the users holding it",
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

type Attribute = Record<string, unknown>;

const attr = (name: string, extra: Partial<Attribute> = {}): Attribute => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const multi = (name: string, subs: Attribute[]): Attribute => attr(name, { type: 'complex', multiValued: true, subAttributes: subs });
const valueSubs = (canonical: string[]): Attribute[] => [
  attr('value'),
  attr('display'),
  attr('type', { canonicalValues: canonical }),
  attr('primary', { type: 'boolean' }),
];

const USER_ATTRIBUTES: Attribute[] = [
  attr('userName', { required: true, uniqueness: 'server' }),
  attr('name', {
    type: 'complex',
    subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((n) => attr(n)),
  }),
  attr('displayName'),
  attr('nickName'),
  attr('profileUrl', { type: 'reference', referenceTypes: ['external'] }),
  attr('title'),
  attr('userType'),
  attr('preferredLanguage'),
  attr('locale'),
  attr('timezone'),
  attr('active', { type: 'boolean' }),
  multi('emails', valueSubs(['work', 'home', 'other'])),
  multi('phoneNumbers', valueSubs(['work', 'home', 'mobile', 'fax', 'pager', 'other'])),
  attr('groups', {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [attr('value', { mutability: 'readOnly' }), attr('$ref', { type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly' }), attr('display', { mutability: 'readOnly' })],
  }),
];

const ENTERPRISE_ATTRIBUTES: Attribute[] = [
  attr('employeeNumber'),
  attr('costCenter'),
  attr('organization'),
  attr('division'),
  attr('department'),
  attr('manager', { type: 'complex', subAttributes: [attr('value'), attr('displayName', { mutability: 'readOnly' })] }),
];

const GROUP_ATTRIBUTES: Attribute[] = [
  attr('displayName', { required: true, uniqueness: 'server' }),
  attr('members', {
    type: 'complex',
    multiValued: true,
    subAttributes: [attr('value', { mutability: 'immutable' }), attr('$ref', { type: 'reference', referenceTypes: ['User'], mutability: 'immutable' }), attr('type', { canonicalValues: ['User'], mutability: 'immutable' })],
  }),
];

export function schemas(base: string): Array<Record<string, unknown>> {
  return [
    { schemas: [SCHEMA_SCHEMA], id: USER_SCHEMA, name: 'User', description: 'User Account', attributes: USER_ATTRIBUTES, meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` } },
    {
      schemas: [SCHEMA_SCHEMA],
      id: GROUP_SCHEMA,
      name: 'Group',
      description: 'Group',
      attributes: GROUP_ATTRIBUTES,
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` },
    },
    {
      schemas: [SCHEMA_SCHEMA],
      id: ENTERPRISE_SCHEMA,
      name: 'EnterpriseUser',
      description: 'Enterprise User',
      attributes: ENTERPRISE_ATTRIBUTES,
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${ENTERPRISE_SCHEMA}` },
    },
  ];
}
