import { ApiProperty } from '@nestjs/swagger';

export class JwkResponse {
  @ApiProperty({ example: 'EC' }) kty: string;
  @ApiProperty({ example: 'P-256' }) crv: string;
  @ApiProperty() x: string;
  @ApiProperty() y: string;
  @ApiProperty() kid: string;
  @ApiProperty({ example: 'ES256' }) alg: string;
  @ApiProperty({ example: 'sig' }) use: string;
}

export class JwksResponse {
  @ApiProperty({ type: [JwkResponse] }) keys: JwkResponse[];
}
