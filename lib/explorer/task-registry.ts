import { Injectable } from '@nestjs/common';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { UnknownTaskError } from '../errors/unknown-task.error.js';
import { DocketMetadataAccessor } from './docket-metadata.accessor.js';
import { parameterNames } from './parameter-names.js';
import { taskNameOf } from './task-name.js';
import type { TaskDefinition } from './task-definition.js';
import type { DocketEvent, DocketEventType } from '../interfaces/docket-event.interface.js';

/** An `@OnDocketEvent` method, bound to its provider. */
export interface DocketEventListener {
  types: ReadonlySet<DocketEventType>;
  /** Only the events of this task (all tasks when absent). */
  task?: string;
  /** `Class#method`, for the logs. */
  source: string;
  call(event: DocketEvent): unknown;
}

/** Every task this process knows, by name. Filled by the explorer at module init. */
@Injectable()
export class TaskRegistry {
  private readonly byName = new Map<string, TaskDefinition>();
  private readonly eventListeners: DocketEventListener[] = [];
  private readonly wantedTypes = new Set<DocketEventType>();

  /** Add an `@OnDocketEvent` method (the explorer does, at module init). */
  addListener(listener: DocketEventListener): void {
    this.eventListeners.push(listener);
    for (const type of listener.types) this.wantedTypes.add(type);
  }

  /** The event types some `@OnDocketEvent` method wants (none when there is no listener). */
  get wantedEvents(): ReadonlySet<DocketEventType> {
    return this.wantedTypes;
  }

  /** The `@OnDocketEvent` methods of this application. */
  get listeners(): readonly DocketEventListener[] {
    return this.eventListeners;
  }

  register(definition: TaskDefinition): void {
    const existing = this.byName.get(definition.name);
    if (existing) {
      throw new DocketConfigurationError(
        `Two tasks are named "${definition.name}": ${existing.source} and ${definition.source}. ` +
          `Give one of them another name with @DocketTask('…').`,
      );
    }
    this.byName.set(definition.name, definition);
  }

  get(name: string): TaskDefinition | undefined {
    return this.byName.get(name);
  }

  /** Parameter names of a task's arguments, when this process can know them. */
  parametersOf(
    task: string | ((...args: any[]) => unknown),
    name: string,
  ): (string | null)[] | undefined {
    const definition = this.byName.get(name);
    if (definition) return definition.parameters;
    if (typeof task !== 'function') return undefined;
    // a batch task's items' arguments have no names (they go by position)
    if (DocketMetadataAccessor.taskOptions(task)?.batch) return [];
    const ctx = DocketMetadataAccessor.ctxIndex(task);
    return parameterNames(task).filter((_, i) => i !== ctx);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get size(): number {
    return this.byName.size;
  }

  /**
   * The name of a task given by name or by method reference. A reference to an undecorated
   * method is an `UnknownTaskError`; so is an unknown name when `strict` (a process with a
   * worker knows every task its code declares).
   */
  resolveName(task: string | ((...args: any[]) => unknown), strict: boolean): string {
    const name = taskNameOf(task);
    if (strict && typeof task === 'string' && !this.byName.has(name)) {
      throw new UnknownTaskError(
        `no task is named "${task}"; known tasks: ${this.names.sort().join(', ')}`,
      );
    }
    return name;
  }
}
