import { applyDecorators } from '@nestjs/common';
import { Field, InputType, Int, registerEnumType } from '@nestjs/graphql';
import { ToolVersionState } from '@toolgate/registry';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsBase64, IsEnum, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested } from 'class-validator';

@InputType()
export class ToolFilterInput {
  @Field({ nullable: true })
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9._-]*$/, { message: 'namespace must be lowercase letters, digits, . _ -' })
  namespace?: string;

  @Field({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  category?: string;

  @Field({ nullable: true, description: 'Also list tools without an active version (admins only).' })
  @IsOptional()
  includeInactive?: boolean;
}

@InputType()
export class ImageInput {
  @Field({ description: 'Declared type; must agree with the bytes. Local OCR reads PNG, JPEG, GIF, TIFF, BMP and WebP; a vision model PNG, JPEG, GIF and WebP.' })
  @IsString()
  @MaxLength(100)
  mimeType!: string;

  @Field({ description: 'The image, base64-encoded (at most TOOLGATE_IMAGE_MAX_BYTES decoded, 10 MiB by default).' })
  @IsBase64()
  @MaxLength(14_000_000)
  dataBase64!: string;

  @Field({ nullable: true, description: 'A file name, used in explanations and errors.' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;
}

/** The images of a task or a search: one field definition for every input that takes them. */
export const ImagesField = (): PropertyDecorator =>
  applyDecorators(
    Field(() => [ImageInput], { nullable: true }),
    IsOptional(),
    ArrayMaxSize(4),
    ValidateNested({ each: true }),
    Type(() => ImageInput),
  );

@InputType()
export class SearchToolsInput {
  @Field({ description: 'The task in words; may be empty when images carry it.' })
  @IsString()
  @ValidateIf((input: SearchToolsInput) => !input.images?.length)
  @MinLength(1, { message: 'query must not be empty without images' })
  @MaxLength(4000)
  query!: string;

  @ImagesField()
  images?: ImageInput[];

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  k?: number;
}

/** Whom a version state change applies to. */
export enum ToolStateScope {
  TENANT = 'tenant',
  PLATFORM = 'platform',
}
registerEnumType(ToolStateScope, { name: 'ToolStateScope', description: "TENANT: the admin's own tenant; PLATFORM: every tenant (needs a platform admin)." });

@InputType()
export class SetToolVersionStateInput {
  @Field()
  @Matches(/^[a-z0-9][a-z0-9._-]*\/[a-z][a-z0-9_-]*$/, { message: 'toolId must be namespace/name' })
  toolId!: string;

  @Field()
  @IsString()
  @MaxLength(64)
  version!: string;

  @Field(() => ToolVersionState)
  @IsEnum(ToolVersionState)
  state!: ToolVersionState;

  @Field(() => ToolStateScope, { defaultValue: ToolStateScope.TENANT, description: "TENANT: the caller's tenant only (any admin); PLATFORM: every tenant (platform admins)." })
  @IsOptional()
  @IsEnum(ToolStateScope)
  scope: ToolStateScope = ToolStateScope.TENANT;
}

@InputType({ description: 'The exact descriptor hash the admin reviewed; refused if another one has loaded since.' })
export class ApproveToolVersionInput {
  @Field()
  @Matches(/^[a-z0-9][a-z0-9._-]*\/[a-z][a-z0-9_-]*$/, { message: 'toolId must be namespace/name' })
  toolId!: string;

  @Field()
  @IsString()
  @MaxLength(64)
  version!: string;

  @Field()
  @Matches(/^[0-9a-f]{64}$/, { message: 'descriptorHash must be a sha256 in lowercase hex' })
  descriptorHash!: string;
}
