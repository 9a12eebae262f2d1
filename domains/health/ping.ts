// ICMP echo through the system's ping (iputils): run without a shell and with an allow-listed environment, its
// output read for the replies and the loss. The program is a setting (HEALTH_PING_COMMAND) so a machine that keeps
// ping elsewhere, or wraps it, still works.
import { childEnvironment, runCommand, splitCommand } from '../../lib/command.ts';

export interface PingResult {
  packets: number;
  received: number;
  loss_pct: number;
  /** Round trips of the replies, in ms, in the order they came. */
  rtts: number[];
  /** What ping said when it could not run or name the host (its last line of errors), else null. */
  error: string | null;
}

// iputils waits at least 200 ms between echo requests unless run by root; 0.2 s is allowed for everyone.
const intervalS = 0.2;

/** The replies, the summary and the loss in iputils' output. */
export function parsePing(output: string, packets: number): Omit<PingResult, 'error'> {
  const rtts = [...output.matchAll(/bytes from .*?time[=<]([\d.]+) ?ms/g)].map((match) => Number(match[1]));
  const summary = output.match(
    /(\d+) packets transmitted, (\d+) (?:packets )?received.*?([\d.]+)% packet loss/,
  );
  const sent = summary ? Number(summary[1]) : packets;
  const received = summary ? Number(summary[2]) : rtts.length;
  const loss = summary ? Number(summary[3]) : sent === 0 ? 100 : 100 * (1 - received / sent);
  return { packets: sent, received, loss_pct: Math.round(loss * 100) / 100, rtts };
}

export async function ping(
  command: string,
  host: string,
  packets: number,
  timeoutMs: number,
): Promise<PingResult> {
  const waitS = Math.max(timeoutMs / 1000, 0.1).toFixed(1);
  // The deadline lets every request have its reply wait; the process time limit adds room to start.
  const deadlineS = Math.ceil((packets - 1) * intervalS + timeoutMs / 1000);
  const argv = [
    ...splitCommand(command),
    '-n',
    '-c',
    String(packets),
    '-i',
    String(intervalS),
    '-W',
    waitS,
    '-w',
    String(deadlineS),
    host,
  ];
  const result = await runCommand(argv, {
    timeoutMs: deadlineS * 1000 + 2000,
    maxOutputBytes: 64 * 1024,
    env: childEnvironment(),
  });
  const parsed = parsePing(result.stdout, packets);
  const problem = result.stderr.trim().split('\n').pop()?.trim() || null;
  // Exit 1 is "no reply"; 2 and others are errors (an unknown host, no permission to send ICMP).
  const error =
    result.timedOut && parsed.received === 0
      ? `ping gave no answer within ${deadlineS + 2} s`
      : result.code !== 0 && result.code !== 1 && parsed.received === 0
        ? (problem ?? `ping exited with status ${result.code}`)
        : null;
  return { ...parsed, error };
}
