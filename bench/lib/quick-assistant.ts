// A runner program for the assistant benchmark: says one line of stream-json at once, carrying the wall-clock time it
// was written, then the result. The benchmark reads that time to see how long the hub took to pass it on.
process.stdin.resume();
process.stdin.on('end', () => {
  const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
  say({
    type: 'assistant',
    message: { model: 'bench', content: [{ type: 'text', text: `at ${Date.now()}` }] },
  });
  say({ type: 'result', subtype: 'success', is_error: false, usage: { input_tokens: 1, output_tokens: 1 } });
});
