import { Body, Controller, Delete, Get, NotFoundException, Param, Post } from '@nestjs/common';
import { SignupService } from './signup.service.js';

@Controller()
export class SignupController {
  constructor(private readonly signups: SignupService) {}

  /** `curl -X POST localhost:3000/signups -H 'content-type: application/json' -d '{"userId":"ada","customerId":42}'` */
  @Post('signups')
  async signUp(@Body() body: { userId: string; customerId: number }) {
    const welcome = await this.signups.signedUp(body.userId, body.customerId);
    return { key: welcome.key, state: welcome.state };
  }

  /** `curl localhost:3000/executions/digest:42` */
  @Get('executions/:key')
  async execution(@Param('key') key: string) {
    const status = await this.signups.status(key);
    if (!status) throw new NotFoundException(`no execution ${key}`);
    return status;
  }

  /** `curl -X DELETE localhost:3000/digests/42` */
  @Delete('digests/:customerId')
  async cancelDigest(@Param('customerId') customerId: string) {
    return { outcome: await this.signups.cancelDigest(Number(customerId)) };
  }
}
