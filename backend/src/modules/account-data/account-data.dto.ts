import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { AccountMessages, Messages, PASSWORD_MAX } from '@studio/contracts';

export class DeleteAccountDto {
  @ApiProperty({ description: 'The current password, to confirm' })
  @IsNotEmpty({ message: Messages.missingFields })
  @IsString({ message: 'password must be text' })
  @MaxLength(PASSWORD_MAX, { message: AccountMessages.wrongPassword })
  password!: string;
}
