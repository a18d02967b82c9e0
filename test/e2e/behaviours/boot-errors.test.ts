import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask, type DocketTaskOptions } from '../../../lib/index.js';
import { createDocket, uniqueName, waitFor } from '../../utils.js';
import { bootError, within } from './helpers.js';

@Injectable()
class PerpetualAndCron {
  @DocketTask({ perpetual: { every: 1_000 }, cron: '* * * * *' })
  async both(): Promise<void> {}
}

@Injectable()
class UnknownArgument {
  @DocketTask({ concurrency: { max: 1, argument: 'nope' } })
  async charge(customerId: number, amount: number): Promise<number> {
    return customerId * amount;
  }
}

@Injectable()
class UnknownPathHead {
  @DocketTask({ rateLimit: { limit: 1, per: 1_000, argument: 'invoice.customerId' } })
  async ship(order: { customerId: number }): Promise<number> {
    return order.customerId;
  }
}

@Injectable()
class DottedPath {
  shipped: number[] = [];

  @DocketTask({
    concurrency: { max: 1, argument: 'order.customerId' },
    rateLimit: { limit: 1, per: 5_000, argument: 'order.customerId', drop: true },
  })
  async ship(order: { customerId: number; id: number }): Promise<void> {
    this.shipped.push(order.id);
  }
}

@Injectable()
class AutomaticWithArgument {
  readonly seen: unknown[] = [];

  @DocketTask({ perpetual: { every: 60_000, automatic: true } })
  async poll(url?: string): Promise<void> {
    this.seen.push(url);
  }
}

@Injectable()
class AutomaticWithDefault {
  @DocketTask({ perpetual: { every: 60_000, automatic: true } })
  async poll(url = 'https://example.com'): Promise<string> {
    return url;
  }
}

@Injectable()
class ZeroLimit {
  @DocketTask({ rateLimit: { limit: 0, per: 1_000 } })
  async limited(): Promise<void> {}
}

@Injectable()
class TwoConcurrencies {
  @DocketTask({
    concurrency: [{ max: 1 }, { max: 2 }] as unknown as DocketTaskOptions['concurrency'],
  })
  async twice(): Promise<void> {}
}

@Injectable()
class BadRetry {
  @DocketTask({ retry: { attempts: 0 } })
  async never(): Promise<void> {}
}

/** Assert a configuration error that names the task and its `Class#method`. */
function assertNames(error: Error, task: string, source: string, ...more: RegExp[]): void {
  assert.equal(error.name, 'DocketConfigurationError', error.message);
  assert.ok(error.message.includes(`task "${task}"`), error.message);
  assert.ok(error.message.includes(source), error.message);
  for (const pattern of more) assert.match(error.message, pattern);
}

describe('boot errors', () => {
  it('refuses perpetual and cron on one task', async () => {
    const error = await bootError([PerpetualAndCron], uniqueName());
    assertNames(error, 'both', 'PerpetualAndCron#both', /perpetual and cron/);
  });

  it('refuses an argument that is not a parameter, listing the parameters', async () => {
    const name = await bootError([UnknownArgument], uniqueName());
    assertNames(name, 'charge', 'UnknownArgument#charge', /"nope"/, /charge\(customerId, amount\)/);
    const path = await bootError([UnknownPathHead], uniqueName());
    assertNames(path, 'ship', 'UnknownPathHead#ship', /invoice\.customerId/, /ship\(order\)/);
  });

  it('accepts a dotted path into an object parameter, and reads it', async () => {
    const docket = await createDocket([DottedPath]);
    try {
      const add = (customerId: number, id: number) =>
        docket.client.add(DottedPath.prototype.ship)({ customerId, id });
      const executions = [await add(1, 10), await add(1, 11), await add(2, 20)];
      await within(docket.worker.runUntilFinished(), 5_000, 'the shipments');
      assert.deepEqual(docket.module.get(DottedPath).shipped.sort(), [10, 20]);
      for (const execution of executions) await execution.sync();
      assert.deepEqual(
        executions.map((e) => e.state),
        ['completed', 'cancelled', 'completed'],
      );
    } finally {
      await docket.close();
    }
  });

  it('boots an automatic task that declares parameters: they arrive as undefined', async () => {
    // TypeScript's `url?: string` compiles to a plain parameter, so a declared parameter
    // cannot be told from an optional one; an automatic run is called with no arguments.
    const docket = await createDocket([AutomaticWithArgument]);
    try {
      const seen = docket.module.get(AutomaticWithArgument).seen;
      void docket.worker.runForever();
      await waitFor(() => seen.length > 0, 'the automatic run');
      assert.deepEqual(seen, [undefined]);
    } finally {
      await docket.close();
    }
    const withDefault = await createDocket([AutomaticWithDefault]);
    await withDefault.close();
  });

  it('refuses a rate limit of 0, two concurrency options and 0 attempts', async () => {
    const zero = await bootError([ZeroLimit], uniqueName());
    assertNames(zero, 'limited', 'ZeroLimit#limited', /rateLimit\.limit/, /not 0/);
    const two = await bootError([TwoConcurrencies], uniqueName());
    assertNames(two, 'twice', 'TwoConcurrencies#twice', /concurrency/);
    const retry = await bootError([BadRetry], uniqueName());
    assertNames(retry, 'never', 'BadRetry#never', /retry\.attempts/);
  });
});
