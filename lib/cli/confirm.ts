import { createInterface } from 'node:readline';
import { Option } from 'commander';
import { CliError, usageError } from './cli-error.js';

/** Where a question is asked and answered: the terminal, or streams in tests. */
export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the plan and the question go (not stdout, which may be piped to a file). */
  output: NodeJS.WritableStream;
  /** Where the plan goes when `--yes` skips the question. */
  log: (line: string) => void;
}

const PROCESS_TERMINAL: Terminal = {
  input: process.stdin,
  output: process.stderr,
  log: (line) => console.log(line),
};

/** `-y, --yes`: go ahead without asking (required when there is no terminal to ask on). */
export function yesOption(): Option {
  return new Option('-y, --yes', 'do not ask for confirmation (needed when not on a terminal)');
}

/** One line typed on `terminal` after `question`; null when the input ends first. */
function ask(terminal: Terminal, question: string): Promise<string | null> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: terminal.input, output: terminal.output });
    let answer: string | null = null;
    lines.once('line', (line) => {
      answer = line;
      lines.close();
    });
    lines.once('close', () => {
      if (answer === null) terminal.output.write('\n');
      resolve(answer);
    });
    lines.setPrompt(question);
    lines.prompt();
  });
}

/** What a command that deletes would do: see `confirm`. */
export interface Deletion {
  /** How much there is to delete. */
  count: number;
  /** What it would do: to which docket, how much. */
  plan: string;
  /** What to say instead when `count` is 0. */
  nothing: string;
}

/**
 * Get the go-ahead for a command that deletes (`docket clear`, `docket dead purge`). Without a
 * terminal and without `--yes` it is a usage error, whatever there is to delete, so that a
 * script learns at its first run that it needs `--yes` and never deletes by accident. With
 * nothing to delete it says so; `--yes` goes ahead, printing the plan; on a terminal the user is
 * asked and must answer y or yes. Resolves true to go ahead, false when there is nothing to do;
 * throws when not confirmed.
 */
export async function confirm(
  request: Deletion,
  yes: boolean | undefined,
  terminal: Terminal = PROCESS_TERMINAL,
): Promise<boolean> {
  if (!yes && terminal.input.isTTY !== true) {
    throw usageError(`${request.plan}; give --yes to go ahead (there is no terminal to ask on)`);
  }
  if (request.count === 0) {
    terminal.log(request.nothing);
    return false;
  }
  if (yes) {
    terminal.log(request.plan);
    return true;
  }
  terminal.output.write(`${request.plan}\n`);
  const answer = await ask(terminal, 'Go ahead? [y/N] ');
  if (!/^\s*y(es)?\s*$/i.test(answer ?? '')) {
    throw new CliError('not confirmed: nothing was changed');
  }
  return true;
}
