import { Field, InputType, Int } from '@nestjs/graphql';
import { ToolVersionState } from '@toolgate/registry';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsBase64, IsEnum, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';

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
  @Field()
  @IsIn(['image/png', 'image/jpeg', 'image/webp'], { message: 'mimeType must be image/png, image/jpeg or image/webp' })
  mimeType!: string;

  @Field({ description: 'The image, base64-encoded (at most 10 MiB decoded).' })
  @IsBase64()
  @MaxLength(14_000_000)
  dataBase64!: string;
}

@InputType()
export class SearchToolsInput {
  @Field()
  @IsString()
  @MinLength(1, { message: 'query must not be empty' })
  @MaxLength(4000)
  query!: string;

  @Field(() => [ImageInput], { nullable: true })
  @IsOptional()
  @ArrayMaxSize(4)
  @ValidateNested({ each: true })
  @Type(() => ImageInput)
  images?: ImageInput[];

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  k?: number;
}

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
}
