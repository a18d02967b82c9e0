import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { DocketModuleOptions } from './config/docket-module-options.interface.js';

export const {
  ConfigurableModuleClass: DocketConfigurableModule,
  MODULE_OPTIONS_TOKEN: DOCKET_MODULE_OPTIONS,
  OPTIONS_TYPE: DOCKET_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: DOCKET_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<DocketModuleOptions>()
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createDocketOptions')
  .setExtras({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
