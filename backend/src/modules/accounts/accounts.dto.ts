import { ApiProperty } from '@nestjs/swagger';
import {
  Equals,
  IsDefined,
  IsBoolean,
  IsEmail,
  IsNotEmpty,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateBy,
} from 'class-validator';
import {
  EMAIL_MAX,
  isReservedUsername,
  Messages,
  PASSWORD_MAX,
  PASSWORD_MIN,
  RESERVED_USERNAME_PATTERN,
  USERNAME_MAX,
  USERNAME_MIN,
  USERNAME_PATTERN,
} from '@studio/contracts';

export class RegisterDto {
  @ApiProperty({ example: 'alice@example.com', maxLength: EMAIL_MAX })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'email must be text' })
  @MaxLength(EMAIL_MAX, { message: Messages.invalidEmail })
  @IsEmail({}, { message: Messages.invalidEmail })
  email!: string;

  @ApiProperty({
    example: 'alice',
    minLength: USERNAME_MIN,
    maxLength: USERNAME_MAX,
    pattern: USERNAME_PATTERN.source,
  })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'username must be text' })
  @MinLength(USERNAME_MIN, { message: Messages.usernameLength })
  @MaxLength(USERNAME_MAX, { message: Messages.usernameLength })
  @Matches(USERNAME_PATTERN, { message: Messages.usernameCharacters })
  @Matches(RESERVED_USERNAME_PATTERN, { message: Messages.usernameReserved })
  @ValidateBy(
    {
      name: 'notReservedUsername',
      validator: { validate: (v) => typeof v !== 'string' || !isReservedUsername(v) },
    },
    { message: Messages.usernameReservedName },
  )
  username!: string;

  @ApiProperty({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'password must be text' })
  @MinLength(PASSWORD_MIN, { message: Messages.passwordLength })
  @MaxLength(PASSWORD_MAX, { message: Messages.passwordLength })
  password!: string;

  @ApiProperty({ description: 'The person confirms being 18 or older', example: true })
  @IsDefined({ message: Messages.mustBeAdult })
  @IsBoolean({ message: Messages.mustBeAdult })
  @Equals(true, { message: Messages.mustBeAdult })
  adult!: boolean;
}

export class LoginDto {
  @ApiProperty({ example: 'alice' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'username must be text' })
  @MaxLength(USERNAME_MAX, { message: Messages.wrongCredentials })
  username!: string;

  @ApiProperty()
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'password must be text' })
  @MaxLength(PASSWORD_MAX, { message: Messages.wrongCredentials })
  password!: string;
}
