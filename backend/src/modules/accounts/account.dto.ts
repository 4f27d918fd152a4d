import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { AccountMessages, EMAIL_MAX, Messages, PASSWORD_MAX, PASSWORD_MIN } from '@studio/contracts';

/** Mailed tokens are 43 base64url characters; anything else is a bad link, answered before any read. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class TokenDto {
  @ApiProperty({ description: 'The token from the mailed link', example: 'q3Xv…(43 characters)' })
  @IsString({ message: AccountMessages.badLink })
  @Matches(TOKEN, { message: AccountMessages.badLink })
  token!: string;
}

export class ForgotPasswordDto {
  @ApiProperty({ example: 'alice@example.com', maxLength: EMAIL_MAX })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: Messages.invalidEmail })
  @MaxLength(EMAIL_MAX, { message: Messages.invalidEmail })
  @IsEmail({}, { message: Messages.invalidEmail })
  email!: string;
}

class NewPassword {
  @ApiProperty({
    minLength: PASSWORD_MIN,
    maxLength: PASSWORD_MAX,
    description: 'At least 8 characters and not too easy to guess (zxcvbn score 2 or more)',
  })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'password must be text' })
  @MinLength(PASSWORD_MIN, { message: Messages.passwordLength })
  @MaxLength(PASSWORD_MAX, { message: Messages.passwordLength })
  password!: string;
}

export class ResetPasswordDto extends NewPassword {
  @ApiProperty({ description: 'The token from the mailed link' })
  @IsString({ message: AccountMessages.badLink })
  @Matches(TOKEN, { message: AccountMessages.badLink })
  token!: string;
}

export class ChangePasswordDto extends NewPassword {
  @ApiProperty({ description: 'The current password' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'currentPassword must be text' })
  @MaxLength(PASSWORD_MAX, { message: AccountMessages.wrongPassword })
  currentPassword!: string;
}

export class SessionHandleParams {
  @ApiProperty({ description: 'A session handle from the list of sessions' })
  @Matches(/^[A-Za-z0-9_-]{22}$/, { message: AccountMessages.sessionNotFound })
  id!: string;
}
