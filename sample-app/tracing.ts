import { Logger } from '@nestjs/common';

/**
 * With `OTEL_TRACES_EXPORTER=console`, print every span on the console: the producer spans of
 * the HTTP API (`docket.add`, `docket.replace`, `docket.cancel`) and one span per task
 * execution. A real deployment starts its own SDK here (`@opentelemetry/sdk-node` with an OTLP
 * exporter). Either way it must be registered before the application is created: the docket
 * looks up `@opentelemetry/api` when its module initialises, and without an SDK every span
 * is a no-op. (A batching exporter also needs its provider shut down on exit; this one writes
 * each span as it ends.)
 */
export async function startTracing(): Promise<void> {
  if (process.env.OTEL_TRACES_EXPORTER !== 'console') return;
  const [api, sdk, hooks] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  const provider = new sdk.BasicTracerProvider({
    spanProcessors: [new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter())],
  });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  new Logger('SampleApp').log('tracing: spans go to the console (OTEL_TRACES_EXPORTER=console)');
}
