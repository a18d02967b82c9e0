type OtelApi = typeof import('@opentelemetry/api');
type Span = import('@opentelemetry/api').Span;

/** The W3C trace context carried in a message. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** A span the engine ends; a no-op without an OpenTelemetry SDK. */
export interface DocketSpan {
  fail(error: unknown): void;
  end(): void;
}

const NO_SPAN: DocketSpan = { fail: () => undefined, end: () => undefined };

/**
 * Spans of the docket through `@opentelemetry/api`: producer spans for add, replace and cancel
 * (their context travels in the message), and a CONSUMER span per execution, named after the
 * task and linked to the producer span. Without the API installed, or without an SDK, every
 * call is a cheap no-op.
 */
export class DocketTracing {
  private constructor(
    private readonly api: OtelApi | undefined,
    private readonly docket: string,
  ) {}

  static async create(docket: string): Promise<DocketTracing> {
    let api: OtelApi | undefined;
    try {
      const loaded = await import('@opentelemetry/api');
      api = ((loaded as { default?: OtelApi }).default ?? loaded) as OtelApi;
    } catch {
      api = undefined;
    }
    return new DocketTracing(api, docket);
  }

  static none(docket: string): DocketTracing {
    return new DocketTracing(undefined, docket);
  }

  private get tracer() {
    return this.api!.trace.getTracer('nestjs-docket');
  }

  /** Whether spans are made now (an SDK is registered); asked per execution or batch. */
  get active(): boolean {
    return this.live() !== undefined;
  }

  /**
   * The API when an SDK is registered, else undefined: without one the API's tracer makes
   * spans that record nothing, and the engine skips them (and their attributes and contexts)
   * altogether. Asked at every span, so an SDK registered after the worker started counts.
   */
  private live(): OtelApi | undefined {
    const api = this.api;
    if (!api) return undefined;
    const provider = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
    const delegate = provider.getDelegate?.() as { constructor?: { name?: string } } | undefined;
    return delegate?.constructor?.name === 'NoopTracerProvider' ? undefined : api;
  }

  /**
   * Run `fn` inside a PRODUCER span named `name`; `carrier` receives the span's context so the
   * caller can put it in the message.
   */
  async produce<T>(
    name: string,
    attributes: Record<string, string | number>,
    fn: (carrier: TraceCarrier) => Promise<T>,
  ): Promise<T> {
    const api = this.live();
    if (!api) return fn({});
    const span = this.tracer.startSpan(name, {
      kind: api.SpanKind.PRODUCER,
      attributes: { 'docket.name': this.docket, ...attributes },
    });
    const ctx = api.trace.setSpan(api.context.active(), span);
    const carrier: TraceCarrier = {};
    api.propagation.inject(ctx, carrier);
    if (
      !carrier.traceparent &&
      span.spanContext().traceFlags !== undefined &&
      api.isSpanContextValid(span.spanContext())
    ) {
      const sc = span.spanContext();
      carrier.traceparent = `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}`;
    }
    try {
      return await api.context.with(ctx, () => fn(carrier));
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  }

  /** Start the CONSUMER span of an execution and run `fn` inside its context. */
  consume<T>(
    task: string,
    carrier: TraceCarrier,
    attributes: Record<string, string | number>,
    fn: (span: DocketSpan) => Promise<T>,
  ): Promise<T> {
    const api = this.live();
    if (!api) return fn(NO_SPAN);
    const links = [];
    const parsed = parseTraceparent(carrier.traceparent);
    if (parsed) links.push({ context: { ...parsed, isRemote: true } });
    const span: Span = this.tracer.startSpan(
      task,
      {
        kind: api.SpanKind.CONSUMER,
        links,
        attributes: { 'docket.name': this.docket, 'docket.task': task, ...attributes },
      },
      api.ROOT_CONTEXT,
    );
    const handle: DocketSpan = {
      fail: (error) => {
        span.recordException(error as Error);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as Error)?.message });
      },
      end: () => span.end(),
    };
    // An execution's span is a root linked to its producer, whatever span was active where
    // the worker loop happened to start.
    return api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, span), () => fn(handle));
  }
}

/** Read a W3C `traceparent` (version 00) into a span context. */
function parseTraceparent(
  text: string | undefined,
): { traceId: string; spanId: string; traceFlags: number } | undefined {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(text ?? '');
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return undefined;
  return { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16) };
}
