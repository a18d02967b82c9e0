import { Module } from '@nestjs/common';
import { DocketModule } from 'nestjs-docket';
import { EmailTasks } from './email.tasks.js';
import { Mailer } from './mailer.js';
import { SignupController } from './signup.controller.js';
import { SignupService } from './signup.service.js';

@Module({
  imports: [
    // Redis at DOCKET_URL, or redis://localhost:6379/0; the worker starts with the app
    DocketModule.forRoot({ name: 'quick-start' }),
  ],
  controllers: [SignupController],
  providers: [Mailer, EmailTasks, SignupService],
})
export class AppModule {}
