// Spans of the docket with the OpenTelemetry SDK and an in-memory exporter. The SDK is
// registered when this file loads, before any docket module initialises (the docket looks up
// @opentelemetry/api then); the global provider can be set once per process, which is why
// these tests have a file of their own.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { Ctx, DocketTask, type TaskBatch, type TaskContext } from '../../../lib/index.js';
import { useDocket } from '../../utils.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);

@Injectable()
class TracedTasks {
  @DocketTask()
  async deliver(parcel: string): Promise<string> {
    return `delivered ${parcel}`;
  }

  @DocketTask()
  async explode(): Promise<void> {
    throw new Error('kaboom');
  }

  /** Fails its first attempt, succeeds on the second. */
  @DocketTask({ retry: { attempts: 2, delay: 10 } })
  async flaky(@Ctx() ctx: TaskContext): Promise<number> {
    if (ctx.attempt === 1) throw new Error('first attempt fails');
    return ctx.attempt;
  }

  /** A batch of up to 3 (a drain starts a smaller one): the item 'bad' fails. */
  @DocketTask({ batch: { size: 3 } })
  async sort(batch: TaskBatch<[string]>): Promise<void> {
    for (const item of batch) if (item.args[0] === 'bad') batch.fail(item, new Error('unsortable'));
  }
}

/** The finished spans, once the processor has handed them over. */
async function spans(): Promise<ReadableSpan[]> {
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

function only<T>(list: T[], what: string): T {
  assert.equal(list.length, 1, `expected one ${what}, got ${list.length}`);
  return list[0];
}

/** The producer span of `name` for `key`. */
function producer(all: ReadableSpan[], name: string, key: string): ReadableSpan {
  return only(
    all.filter((s) => s.name === name && s.attributes['docket.key'] === key),
    `${name} span for ${key}`,
  );
}

/** The execution spans of `key`, by attempt. */
function executions(all: ReadableSpan[], key: string): ReadableSpan[] {
  return all
    .filter((s) => s.kind === SpanKind.CONSUMER && s.attributes['docket.key'] === key)
    .sort(
      (a, b) => Number(a.attributes['docket.attempt']) - Number(b.attributes['docket.attempt']),
    );
}

function assertLinked(consumer: ReadableSpan, producerSpan: ReadableSpan): void {
  const { traceId, spanId } = producerSpan.spanContext();
  assert.deepEqual(
    consumer.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
    })),
    [{ traceId, spanId }],
    `${consumer.name} attempt ${consumer.attributes['docket.attempt']} is not linked to ${producerSpan.name}`,
  );
}

describe('tracing', { timeout: 60_000 }, () => {
  after(() => provider.shutdown());
  beforeEach(() => exporter.reset());

  it('runs a task in a CONSUMER span named after it, linked to the docket.add PRODUCER span', async (t) => {
    const docket = await useDocket(t, [TracedTasks]);
    const key = `deliver-${docket.name}`;
    await docket.client.add(TracedTasks.prototype.deliver, { key })('a parcel');
    await docket.worker.runUntilFinished();

    const all = await spans();
    const add = producer(all, 'docket.add', key);
    assert.equal(add.kind, SpanKind.PRODUCER);
    assert.equal(add.attributes['docket.task'], 'deliver');

    const run = only(executions(all, key), 'execution span');
    assert.equal(run.name, 'deliver');
    assert.equal(run.kind, SpanKind.CONSUMER);
    assert.equal(run.attributes['docket.key'], key);
    assert.equal(run.attributes['docket.attempt'], 1);
    assert.equal(run.attributes['docket.worker'], docket.worker.name);
    assert.notEqual(run.status.code, SpanStatusCode.ERROR);
    assertLinked(run, add);
  });

  it('marks the span of a failing task ERROR with an exception event', async (t) => {
    const docket = await useDocket(t, [TracedTasks]);
    const key = `explode-${docket.name}`;
    await docket.client.add(TracedTasks.prototype.explode, { key })();
    await docket.worker.runUntilFinished();

    const all = await spans();
    const run = only(executions(all, key), 'execution span');
    assert.equal(run.name, 'explode');
    assert.equal(run.status.code, SpanStatusCode.ERROR);
    assert.equal(run.status.message, 'kaboom');
    const exception = only(
      run.events.filter((e) => e.name === 'exception'),
      'exception event',
    );
    assert.equal(exception.attributes?.['exception.message'], 'kaboom');
    assert.match(String(exception.attributes?.['exception.stacktrace']), /kaboom/);
    assertLinked(run, producer(all, 'docket.add', key));
  });

  it('continues the trace of the caller: docket.add is a child of the active span', async (t) => {
    const docket = await useDocket(t, [TracedTasks]);
    const key = `request-${docket.name}`;
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('POST /parcels', async (request) => {
      try {
        await docket.client.add(TracedTasks.prototype.deliver, { key })('another parcel');
      } finally {
        request.end();
      }
    });
    await docket.worker.runUntilFinished();

    const all = await spans();
    const request = only(
      all.filter((s) => s.name === 'POST /parcels'),
      'request span',
    );
    const add = producer(all, 'docket.add', key);
    assert.equal(add.spanContext().traceId, request.spanContext().traceId);
    assert.equal(add.parentSpanContext?.spanId, request.spanContext().spanId);
    assertLinked(only(executions(all, key), 'execution span'), add);
  });

  it('makes PRODUCER spans for replace and cancel', async (t) => {
    const docket = await useDocket(t, [TracedTasks]);
    const key = `later-${docket.name}`;
    await docket.client.add(TracedTasks.prototype.deliver, { key, delay: 60_000 })('x');
    await docket.client.replace(TracedTasks.prototype.deliver, { key, delay: 120_000 })('y');
    await docket.client.cancel(key);

    const all = await spans();
    for (const name of ['docket.add', 'docket.replace', 'docket.cancel']) {
      assert.equal(producer(all, name, key).kind, SpanKind.PRODUCER, name);
    }
    assert.deepEqual(executions(all, key), []);
  });

  it('gives each item of a batch its own CONSUMER span, linked to its own add', async (t) => {
    const docket = await useDocket(t, [TracedTasks]);
    const keys = ['a', 'bad', 'c'].map((p) => `sort-${p}-${docket.name}`);
    for (const [i, key] of keys.entries()) {
      await docket.client.add(TracedTasks.prototype.sort, { key })(['a', 'bad', 'c'][i]);
    }
    await docket.worker.runUntilFinished();

    const all = await spans();
    for (const key of keys) {
      const run = only(executions(all, key), `execution span of ${key}`);
      assert.equal(run.name, 'sort');
      assert.equal(run.attributes['docket.batch.size'], 3);
      assert.equal(
        run.status.code,
        key.startsWith('sort-bad') ? SpanStatusCode.ERROR : SpanStatusCode.UNSET,
        key,
      );
      assertLinked(run, producer(all, 'docket.add', key));
    }
  });

  it('links every attempt of a retried task to the producer span', async (t) => {
    const docket = await useDocket(t, [TracedTasks]);
    const key = `flaky-${docket.name}`;
    await docket.client.add(TracedTasks.prototype.flaky, { key })();
    await docket.worker.runUntilFinished();

    const all = await spans();
    const add = producer(all, 'docket.add', key);
    const runs = executions(all, key);
    assert.deepEqual(
      runs.map((s) => [s.attributes['docket.attempt'], s.status.code]),
      [
        [1, SpanStatusCode.ERROR],
        [2, SpanStatusCode.UNSET],
      ],
    );
    for (const run of runs) assertLinked(run, add);
  });
});
