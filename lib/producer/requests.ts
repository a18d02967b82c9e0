import { DEFAULT_PRIORITY } from '../behaviours/priority.js';
import type { StrikeSync } from '../behaviours/strike-sync.js';
import type { Execution, ExecutionSource } from '../execution/execution.js';
import type { TaskRef } from '../execution/task-args.type.js';
import type { TaskRegistry } from '../explorer/task-registry.js';
import type { AddOptions } from '../interfaces/execution.interface.js';
import type { DocketMetrics } from '../observability/docket-metrics.js';
import type {
  ScheduleDependencies,
  ScheduleOutcome,
  ScheduleRequest,
} from '../store/docket-store.js';
import { executionOf } from './client-parts.js';
import {
  checkKey,
  encodedArgs,
  requestedAfter,
  requestedPriority,
  requestedTime,
} from './request-checks.js';

/** What the request builder needs from the client. */
export interface RequestsEnv {
  maxKeyBytes: number;
  maxPayloadBytes: number;
  /** Whether this process runs a worker (then it knows every task: an unknown name fails). */
  strict: boolean;
  registry: Pick<TaskRegistry, 'resolveName' | 'get' | 'parametersOf'>;
  strikes: Pick<StrikeSync, 'ready' | 'list'>;
  metrics: DocketMetrics;
  /** What the executions handed out read from. */
  source: ExecutionSource;
}

/** What `Requests.plan` makes of a task and the options of its adds. */
export interface RequestPlan {
  taskName: string;
  priority: number;
  after?: ScheduleDependencies;
}

/**
 * How an add becomes a schedule request and its answer an execution, for every path that adds
 * (`add`, `replace`, `addMany`, the agenda): the task and options checked once, each call's
 * arguments encoded and checked, strikes consulted, the answer made an `Execution`.
 */
export class Requests {
  constructor(private readonly env: RequestsEnv) {}

  /**
   * The task's name and the priority of its adds (the options' own, else the task's), the
   * options checked (`what` names the call in a bad key's message); throws as `add` does.
   */
  plan(task: TaskRef, options: AddOptions, what: string): RequestPlan {
    const { registry, maxKeyBytes } = this.env;
    const taskName = registry.resolveName(task, this.env.strict);
    requestedTime(options); // a bad when or delay fails here, before anything is called
    const declared = registry.get(taskName)?.plan.priority ?? DEFAULT_PRIORITY;
    const priority = requestedPriority(options, declared);
    if (options.key !== undefined) checkKey(options.key, maxKeyBytes, what);
    const after = requestedAfter(options, maxKeyBytes, what);
    if (!after) return { taskName, priority };
    return { taskName, priority, after };
  }

  /**
   * The request of one call of a planned task, its arguments encoded and checked against
   * `maxPayloadBytes` (`bytes`: their encoded size).
   */
  request(
    { taskName, priority, after }: RequestPlan,
    args: readonly unknown[],
    key: string,
    when: number,
    mode: 'add' | 'replace',
  ): { request: ScheduleRequest; bytes: number } {
    const { encoded, bytes } = encodedArgs(args, taskName, key, this.env.maxPayloadBytes);
    const request: ScheduleRequest = { key, taskName, args: encoded, when, attempt: 1, mode };
    if (priority !== DEFAULT_PRIORITY) request.priority = priority;
    if (after) request.after = after;
    return { request, bytes };
  }

  /** Whether a strike in effect blocks this call (the strikes loaded first; counted when it does). */
  async blocked(
    task: TaskRef,
    request: ScheduleRequest,
    args: readonly unknown[],
  ): Promise<boolean> {
    const { strikes, registry, metrics } = this.env;
    await strikes.ready();
    const { taskName } = request;
    if (!strikes.list.matches(taskName, registry.parametersOf(task, taskName), args)) return false;
    metrics.count('stricken', { task: taskName });
    return true;
  }

  /** The execution a request became (or the live one it found), counted when it was scheduled. */
  answered(request: ScheduleRequest, args: readonly unknown[], result: ScheduleOutcome): Execution {
    const execution = executionOf(this.env.source, request, args, result);
    if (execution.disposition === 'scheduled') {
      this.env.metrics.count('scheduled', { task: request.taskName });
    }
    return execution;
  }
}
