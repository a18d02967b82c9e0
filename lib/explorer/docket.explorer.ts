import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { ResolvedDocketOptions } from '../config/resolve-options.js';
import { DOCKET_OPTIONS, DOCKET_PLAN_COMPILER } from '../docket.tokens.js';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { DocketMetadataAccessor } from './docket-metadata.accessor.js';
import { parameterList } from './parameter-names.js';
import type { PlanCompiler } from './task-definition.js';
import { taskNameOf } from './task-name.js';
import { TaskRegistry } from './task-registry.js';

/** Finds `@DocketTask` methods on singleton providers and registers them, once, at init. */
@Injectable()
export class DocketExplorer implements OnModuleInit {
  private readonly logger = new Logger('Docket');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly registry: TaskRegistry,
    @Inject(DOCKET_PLAN_COMPILER) private readonly compilePlan: PlanCompiler,
    @Inject(DOCKET_OPTIONS) private readonly options: ResolvedDocketOptions,
  ) {}

  onModuleInit(): void {
    this.explore();
  }

  explore(): void {
    if (this.registry.size > 0 || this.registry.listeners.length > 0) return;
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as object | undefined;
      const prototype = instance ? Object.getPrototypeOf(instance) : wrapper.metatype?.prototype;
      if (!prototype || typeof prototype !== 'object' || prototype === Object.prototype) continue;
      const names = this.scanner.getAllMethodNames(prototype);
      const methods = names.filter((name) => DocketMetadataAccessor.taskOptions(prototype[name]));
      const listeners = names.filter((name) =>
        DocketMetadataAccessor.eventListener(prototype[name]),
      );
      if (methods.length === 0 && listeners.length === 0) continue;
      const className = (instance?.constructor ?? wrapper.metatype)?.name ?? String(wrapper.name);
      if (!wrapper.isDependencyTreeStatic() || !instance) {
        for (const name of [...methods, ...listeners]) {
          this.logger.warn(
            `${className}#${name} is skipped: @DocketTask and @OnDocketEvent need a singleton provider, not a request- or transient-scoped one`,
          );
        }
        continue;
      }
      if (seen.has(instance)) continue;
      seen.add(instance);
      for (const name of methods) this.register(instance, className, name, prototype[name]);
      for (const name of listeners) this.listen(instance, className, name, prototype[name]);
    }
    this.checkFallback();
  }

  /** The worker's `fallbackTask` must name a task found here. */
  private checkFallback(): void {
    const fallback = this.options.worker ? this.options.worker.fallbackTask : undefined;
    if (fallback === undefined || this.registry.get(fallback)) return;
    throw new DocketConfigurationError(
      `DocketModule: worker.fallbackTask "${fallback}" is not a task of this application; ` +
        `name one of its @DocketTask methods (tasks: ${this.registry.names.sort().join(', ')}).`,
    );
  }

  private listen(
    instance: object,
    className: string,
    methodName: string,
    method: (...args: any[]) => unknown,
  ): void {
    const options = DocketMetadataAccessor.eventListener(method)!;
    const source = `${className}#${methodName}`;
    let task: string | undefined;
    try {
      task = options.task === undefined ? undefined : taskNameOf(options.task);
    } catch (error) {
      throw new DocketConfigurationError(
        `${source}: @OnDocketEvent task: ${(error as Error).message}`,
      );
    }
    this.registry.addListener({
      types: new Set(options.types),
      task,
      source,
      call: (event) => method.call(instance, event),
    });
  }

  private register(
    instance: object,
    className: string,
    methodName: string,
    method: (...args: any[]) => unknown,
  ): void {
    const options = DocketMetadataAccessor.taskOptions(method) ?? {};
    const source = `${className}#${methodName}`;
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name === '')) {
      throw new DocketConfigurationError(`${source}: @DocketTask name must be a non-empty string`);
    }
    const ctxIndex = DocketMetadataAccessor.ctxIndex(method);
    const list = parameterList(method);
    // a batch handler's one parameter is the batch: its items' arguments go by position
    const parameters = options.batch ? [] : list.names.filter((_, i) => i !== ctxIndex);
    const definition = {
      name: options.name ?? methodName,
      source,
      options,
      method,
      instance,
      ctxIndex,
      parameters,
      rest: options.batch ? true : list.rest,
    };
    this.registry.register({ ...definition, plan: this.compilePlan(definition) });
  }
}
