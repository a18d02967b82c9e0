// The docket logs through Nest's Logger: whatever logger the application uses (here one that
// keeps its lines, given with useLogger) receives one line when an execution starts and one
// when it ends, with the task, the key and the attempt.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DocketClient, DocketModule, DocketTask, DocketWorker } from '../../../lib/index.js';
import { REDIS_URL, uniqueName } from '../../utils.js';
import { CapturingLogger, type LogLine } from './helpers.js';

@Injectable()
class LoggedTasks {
  @DocketTask()
  async greet(name: string): Promise<string> {
    return `hello ${name}`;
  }

  @DocketTask({ retry: { attempts: 2, delay: 10 } })
  async crash(): Promise<void> {
    throw new RangeError('the crash of the day');
  }
}

describe('execution logs', { timeout: 60_000 }, () => {
  it('writes a start and an end line per execution, failures with error and stack', async () => {
    const logger = new CapturingLogger();
    const name = uniqueName('logs');
    const module = await Test.createTestingModule({
      imports: [DocketModule.forRoot({ url: REDIS_URL, name, worker: { autoStart: false } })],
      providers: [LoggedTasks],
    }).compile();
    module.useLogger(logger);
    await module.init();
    try {
      const docket = module.get(DocketClient);
      const ok = `greet-${name}`;
      const bad = `crash-${name}`;
      await docket.add(LoggedTasks.prototype.greet, { key: ok })('ada');
      await docket.add(LoggedTasks.prototype.crash, { key: bad })();
      await module.get(DocketWorker).runUntilFinished();

      const about = (key: string): LogLine[] =>
        logger.lines.filter((line) => line.message.includes(key));

      // one start line and one end line, with task, key, attempt, and how late / how long
      const greet = about(ok);
      assert.equal(greet.length, 2, JSON.stringify(greet));
      const [started, ended] = greet;
      assert.equal(started.level, 'log');
      assert.equal(started.context, 'Docket');
      assert.match(
        started.message,
        new RegExp(`greet\\(${ok}\\) attempt 1 started, \\d+ms after due`),
      );
      assert.equal(ended.level, 'log');
      assert.match(ended.message, new RegExp(`greet\\(${ok}\\) attempt 1 completed in \\d+ms`));

      // attempt 1 fails and is retried (a warning), attempt 2 fails for good (an error + stack)
      const crash = about(bad);
      assert.deepEqual(
        crash.map((line) => [line.level, /attempt (\d)/.exec(line.message)?.[1]]),
        [
          ['log', '1'],
          ['warn', '1'],
          ['log', '2'],
          ['error', '2'],
        ],
        JSON.stringify(crash),
      );
      assert.match(
        crash[1].message,
        /failed after \d+ms \(RangeError: the crash of the day\); retry at /,
      );
      const failed = crash[3];
      assert.match(
        failed.message,
        /crash\(.*\) attempt 2 failed after \d+ms: RangeError: the crash of the day/,
      );
      assert.match(failed.stack ?? '', /^RangeError: the crash of the day\n\s+at /);
      assert.equal(failed.context, 'Docket');
    } finally {
      await module.close();
    }
  });
});
