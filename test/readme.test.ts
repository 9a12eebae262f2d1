// The README a newcomer reads is true: its tables render, the configuration tables name every variable the hub
// reads, the tool protocol's curl requests work and its tool list is the live one, and the knowledge section's
// bodies are what the API takes (each example is sent to a real app).
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { createAgent, ownerToken, testApp } from './helpers/app.ts';
import { repoRoot } from './helpers/process.ts';

const run = promisify(execFile);
const readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
const lines = readme.split('\n');

/** The lines of the section under `heading` (up to the next heading of the same or a higher level). */
function section(heading: string): string[] {
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README has no "${heading}"`);
  const level = heading.split(' ')[0].length;
  let inCode = false;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i])) inCode = !inCode;
    // A shell comment in a code block is no heading.
    if (!inCode && /^#+ /.test(lines[i]) && lines[i].split(' ')[0].length <= level)
      return lines.slice(start + 1, i);
  }
  return lines.slice(start + 1);
}

/** The fenced code blocks of some lines, with their info string. */
function codeBlocks(of: string[]): { info: string; text: string }[] {
  const blocks: { info: string; text: string }[] = [];
  let open: { info: string; body: string[]; indent: number } | null = null;
  for (const line of of) {
    const fence = /^(\s*)```(.*)$/.exec(line);
    if (fence && !open) open = { info: fence[2].trim(), body: [], indent: fence[1].length };
    else if (fence && open) {
      blocks.push({ info: open.info, text: open.body.join('\n') });
      open = null;
    } else if (open) open.body.push(line.slice(open.indent));
  }
  return blocks;
}

/** The cells of a table row; `\|` inside a cell is not a boundary. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** Every table of the README as rows of cells (header first), with the problems that keep one from rendering. */
function tables(): { rows: string[][]; line: number; heading: string }[] {
  const found: { rows: string[][]; line: number; heading: string }[] = [];
  let inCode = false;
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i])) inCode = !inCode;
    if (inCode) continue;
    if (/^#+ /.test(lines[i])) heading = lines[i];
    if (!lines[i].startsWith('|')) continue;
    const start = i;
    while (i + 1 < lines.length && lines[i + 1].startsWith('|')) i++;
    found.push({ rows: lines.slice(start, i + 1).map(cells), line: start + 1, heading });
  }
  return found;
}

t.test(
  'every table renders: a header, its delimiter row, a blank line before, one column count',
  async (t) => {
    const problems: string[] = [];
    let inCode = false;
    for (let i = 0; i < lines.length; i++) {
      if (/^\s*```/.test(lines[i])) inCode = !inCode;
      // A row that follows text (a list item, a paragraph) is read as part of that text: the orphan rows of old.
      if (
        !inCode &&
        /^\s*\|/.test(lines[i]) &&
        i > 0 &&
        lines[i - 1].trim() !== '' &&
        !/^\s*\|/.test(lines[i - 1])
      ) {
        problems.push(`line ${i + 1}: a table row right after text`);
      }
    }
    for (const table of tables()) {
      const [header, delimiter, ...rows] = table.rows;
      if (!delimiter?.every((cell) => /^:?-+:?$/.test(cell))) {
        problems.push(`line ${table.line}: no delimiter row under the header`);
        continue;
      }
      for (const [index, row] of rows.entries()) {
        if (row.length !== header.length) {
          problems.push(`line ${table.line + 2 + index}: ${row.length} cells under ${header.length} headers`);
        }
      }
    }
    t.same(problems, []);
  },
);

t.test('the configuration tables, one per area, name every variable the hub reads', async (t) => {
  const configTables = tables().filter((table) => section('## Configuration').includes(table.heading));
  t.ok(configTables.length >= 8, `${configTables.length} tables, one per area`);
  const documented = new Set(
    configTables.flatMap((table) =>
      table.rows
        .slice(2)
        .flatMap((row) => [...row[0].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1])),
    ),
  );
  const folder = path.join(repoRoot, 'config');
  const sources = await Promise.all(
    (await readdir(folder)).map((file) => readFile(path.join(folder, file), 'utf8')),
  );
  const source = sources.join('\n');
  const read = [...new Set([...source.matchAll(/'([A-Z][A-Z0-9_]{3,})'/g)].map((match) => match[1]))].sort();
  t.ok(read.length > 80, `${read.length} variables read by config/`);
  t.same(
    read.filter((name) => !documented.has(name)),
    [],
    'each has its row',
  );
  t.same(
    [...documented].filter((name) => !read.includes(name)),
    [],
    'and each row is a variable the hub reads',
  );
  const secrets = [...source.matchAll(/secret\(env, '([A-Z][A-Z0-9_]+)'\)/g)].map((match) => match[1]);
  t.ok(secrets.length >= 10, `${secrets.length} secrets`);
  const configuration = section('## Configuration').join('\n');
  t.same(
    secrets.filter((name) => !configuration.includes(`\`${name}_FILE\``)),
    [],
    'each secret names its _FILE form',
  );
});

t.test('the tool protocol section: working curl requests and the live list of tools', async (t) => {
  const ta = await testApp(t);
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as { port: number };
  const agent = await createAgent(ta, { tier: 'read' });
  const mcp = section('## Agents, tokens and the tool protocol (MCP)');

  const block = codeBlocks(mcp).find((code) => code.info === 'sh' && code.text.includes('/api/mcp'));
  t.ok(block, 'a curl example');
  const requests = (block?.text ?? '').split(/\n\s*\n/).filter((text) => text.includes('curl'));
  t.equal(requests.length, 2, 'tools/list and tools/call');
  const answers: { result?: { tools?: { name: string; annotations?: { readOnlyHint?: boolean } }[] } }[] = [];
  for (const request of requests) {
    t.match(request, "-H 'Accept: application/json, text/event-stream'", 'with the Accept header it needs');
    const command = request.replaceAll('http://localhost:3000', `http://127.0.0.1:${port}`);
    const { stdout } = await run('bash', ['-c', command], {
      env: { ...process.env, AGENT_TOKEN: agent.token },
    });
    answers.push(JSON.parse(stdout));
  }
  const live = answers[0].result?.tools ?? [];
  t.ok(live.length > 15, `tools/list through curl names ${live.length} tools`);
  t.match(
    answers[1],
    { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text' }] } },
    'tools/call answers',
  );

  const listed = (kind: string) => {
    const at = mcp.findIndex((line) => line.startsWith(`- ${kind}`));
    if (at < 0) return [];
    // The item and the lines that continue it (indented), up to the next item or the end of the list.
    let end = at + 1;
    while (end < mcp.length && /^ {2}\S/.test(mcp[end])) end++;
    const text = mcp.slice(at, end).join(' ');
    return [...text.replace(/^[^:]*:/, '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1]).sort();
  };
  const names = (readOnly: boolean) =>
    live
      .filter((tool) => tool.annotations?.readOnlyHint === readOnly)
      .map((tool) => tool.name)
      .sort();
  t.same(listed('reading'), names(true), 'the reading tools listed are the live ones');
  t.same(listed('writing'), names(false), 'the writing tools listed are the live ones');
});

t.test("the knowledge section's bodies are the API's, and its examples are taken as written", async (t) => {
  const ta = await testApp(t);
  const doc = (await ta.anon({ method: 'GET', url: '/api/openapi.json' })).json() as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
    components: { schemas: Record<string, Schema> };
  };
  interface Schema {
    $ref?: string;
    properties?: Record<string, unknown>;
    required?: string[];
  }
  const bodyOf = (method: string, route: string): Schema => {
    const schema = doc.paths[route]?.[method]?.requestBody?.content['application/json']?.schema ?? {};
    return schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop() as string] : schema;
  };
  const heading = '## Knowledge: spaces, pages, projects, tasks and refs';
  const knowledge = section(heading);
  const table = tables().find((found) => found.heading === heading && found.rows[0][0] === 'kind');
  t.ok(table, 'a table of bodies');
  for (const [kind, create, body] of table?.rows.slice(2) ?? []) {
    const route = /`POST (\S+)`/.exec(create)?.[1] ?? '';
    // The fields are the comma-separated items outside parentheses; each starts with its name.
    const items: string[] = [];
    let depth = 0;
    let current = '';
    for (const char of body) {
      if (char === '(') depth++;
      if (char === ')') depth--;
      if ((char === ',' || char === ';') && depth === 0) {
        items.push(current);
        current = '';
      } else current += char;
    }
    items.push(current);
    const fields = items
      .map((item) => /^\s*(\*\*)?`([a-z_]+)`/.exec(item))
      .filter((match) => match !== null)
      .map((match) => ({ name: match[2], required: match[1] === '**' }));
    const schema = bodyOf('post', route);
    t.same(
      fields.map((field) => field.name).sort(),
      Object.keys(schema.properties ?? {}).sort(),
      `${kind}: the fields of POST ${route}`,
    );
    t.same(
      fields
        .filter((field) => field.required)
        .map((field) => field.name)
        .sort(),
      [...(schema.required ?? [])].sort(),
      `${kind}: the required ones in bold`,
    );
  }

  const examples = codeBlocks(knowledge).find((code) => code.info === 'http');
  const ids: Record<string, string> = {};
  const sent: string[] = [];
  for (const example of (examples?.text ?? '').split(/\n\s*\n/)) {
    const [requestLine, ...rest] = example.trim().split('\n');
    const [, method, target] = /^([A-Z]+) (.+)$/.exec(requestLine) ?? [];
    const fill = (text: string) =>
      text.replace(/<([a-z]+) id>/g, (_all, kind: string) => ids[kind] ?? 'missing');
    const response = await ta.asOwner({
      method: method as 'POST',
      url: fill(target),
      headers: { 'content-type': 'application/json' },
      payload: fill(rest.join('\n')),
    });
    t.ok(
      response.statusCode < 300,
      `${method} ${target}: ${response.statusCode} ${response.body.slice(0, 200)}`,
    );
    const kind = /^\/api\/([a-z]+?)s(\/upsert)?$/.exec(target)?.[1];
    if (kind && method === 'POST') ids[kind] = response.json().id;
    sent.push(`${method} ${target}`);
  }
  t.ok(sent.length >= 7, `${sent.length} examples sent`);
  const task = await ta.asOwner({ method: 'GET', url: `/api/tasks/${ids.task}` });
  t.match(task.json(), { status: 'done', due_at: '2026-12-20T00:00:00.000Z' }, 'and they did what they say');
});

t.test("the knowledge section's curl example works as written", async (t) => {
  const ta = await testApp(t);
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as { port: number };
  const example = codeBlocks(section('## Knowledge: spaces, pages, projects, tasks and refs')).find(
    (code) => code.info === 'sh',
  );
  const command = (example?.text ?? 'false').replaceAll('http://localhost:3000', `http://127.0.0.1:${port}`);
  const { stdout } = await run('bash', ['-c', command], { env: { ...process.env, OWNER_TOKEN: ownerToken } });
  t.match(JSON.parse(stdout), { name: 'Home lab', description: 'Servers, network and backups' });
});

t.test('the systemd unit restarts the hub after a crash and lets it stop its database', async (t) => {
  const unit = codeBlocks(section('## Running elsewhere')).find((code) => code.info === 'ini');
  t.ok(unit, 'a systemd unit');
  for (const directive of ['Restart=on-failure', 'KillMode=mixed', 'WantedBy=multi-user.target']) {
    t.match(unit?.text, new RegExp(`^${directive}$`, 'm'), directive);
  }
  t.match(
    unit?.text,
    /^ExecStart=\S*node .*dist\/main\.js$/m,
    'node runs the bundle (scripts/build-server.ts) itself, so SIGTERM reaches it',
  );
});

t.test(
  'npm start, the Docker image, the systemd unit and the workers run Node with the same options',
  async (t) => {
    const flagsOf = (command: string | undefined) =>
      /node ((?:--\S+ )+)dist\/(?:main|worker)\.js/.exec(command ?? '')?.[1].trim();
    const scripts = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')).scripts as {
      start: string;
      worker: string;
    };
    const start = flagsOf(scripts.start);
    t.match(start, /--optimize-for-size/, 'npm start sets the memory options');
    t.match(start, /--efficiency-mode/);
    const cmd = /^CMD (\[.*\])$/m.exec(await readFile(path.join(repoRoot, 'Dockerfile'), 'utf8'))?.[1];
    t.equal(flagsOf((JSON.parse(cmd ?? '[]') as string[]).join(' ')), start, 'the Docker image');
    const unit = codeBlocks(section('## Running elsewhere')).find((code) => code.info === 'ini');
    t.equal(flagsOf(/^ExecStart=(.*)$/m.exec(unit?.text ?? '')?.[1]), start, 'the systemd unit');
    t.equal(flagsOf(scripts.worker), start, 'npm run worker');
    t.match(scripts.worker, /MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-2\}/, 'and its allocator setting');
    const compose = codeBlocks(section('## More than one machine')).find((code) => code.info === 'yaml');
    const workers = [...(compose?.text ?? '').matchAll(/command: (\[[^\]]*dist\/worker\.js"\])/g)];
    t.equal(workers.length, 2, 'the compose example has two workers');
    for (const [, command] of workers) {
      t.equal(flagsOf((JSON.parse(command) as string[]).join(' ')), start, 'a compose worker');
    }
  },
);
