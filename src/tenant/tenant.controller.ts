import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { GetTenantQuery, GetTenantResponse, ListTenantsQuery, ListTenantsResponse, ProvisionTenantDto, ProvisionTenantResponse } from './dto/tenant.dto';
import { TenantService } from './tenant.service';

@ApiTags('Tenants')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/tenants')
export class TenantController {
  constructor(private readonly tenants: TenantService) {}

  @Get()
  @Authenticated({ role: Role.PLATFORM_ADMIN })
  @ApiOperation({ summary: 'List the tenants, oldest first, with search and paging (platform admins)' })
  @ApiOkResponse({ type: ListTenantsResponse })
  list(@Query() query: ListTenantsQuery): Promise<ListTenantsResponse> {
    return this.tenants.list(query);
  }

  @Get(':tenantID')
  @Authenticated({ role: Role.PLATFORM_ADMIN })
  @ApiOperation({ summary: 'Get a tenant (platform admins)' })
  @ApiOkResponse({ type: GetTenantResponse })
  get(@Param('tenantID') tenantId: string, @Query() query: GetTenantQuery): Promise<GetTenantResponse> {
    return this.tenants.get(tenantId, query);
  }

  @Post()
  @HttpCode(200)
  @Authenticated({ role: Role.PLATFORM_ADMIN })
  @ApiOperation({ summary: 'Provision an isolated tenant with its default sector, signing key and first admin (platform admins)' })
  @ApiOkResponse({ type: ProvisionTenantResponse })
  provision(@Body() body: ProvisionTenantDto): Promise<ProvisionTenantResponse> {
    return this.tenants.provision(body);
  }
}
