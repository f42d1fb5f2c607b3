// Drives gradlint's VS Code extension in a real VS Code, for test/vscode/extension.test:
// code-server (VS Code served to a browser) with the VSIX installed, opened in Debian's Chromium
// through puppeteer-core, both from test/vscode/setup.sh. It does what a user does (quick open,
// the Problems view, Ctrl+. on a diagnostic, opening a notebook), and prints what VS Code shows,
// one fact a line, for FileCheck. On a failure it prints `FAIL: step: why`, saves a screenshot
// next to the final one (*-failure.png) and exits 1.
//
// node drive.js --tools DIR --vsix FILE --project DIR --python ENV/bin/python --work DIR
//               --screenshot FILE.png
// The project starts without .vscode/settings.json; the driver writes one that selects the
// environment (python.defaultInterpreterPath) after checking the "no gradlint" message.
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const options = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) {
  options[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
}
for (const name of ['tools', 'vsix', 'project', 'python', 'work', 'screenshot']) {
  if (!options[name]) {
    console.error(`drive.js: --${name} is missing`);
    process.exit(2);
  }
}
const puppeteer = require(path.join(options.tools, 'node_modules', 'puppeteer-core'));
const codeServer = path.join(options.tools, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const userData = path.join(options.work, 'user-data');
const extensions = path.join(options.work, 'extensions');
// code-server writes its config.yaml under XDG_CONFIG_HOME, its logs under XDG_DATA_HOME, and
// VS Code a device id under ~/.cache: all in the test's folder, never in the user's home.
const environment = {
  ...process.env,
  HOME: path.join(options.work, 'home'),
  XDG_CONFIG_HOME: path.join(options.work, 'home', '.config'),
  XDG_DATA_HOME: path.join(options.work, 'home', '.local', 'share'),
  XDG_CACHE_HOME: path.join(options.work, 'home', '.cache'),
};
// The extension must not find a gradlint before the test selects the environment: drop the
// PATH folders that hold one (an installed gradlint on the machine).
environment.PATH = (process.env.PATH || '')
  .split(path.delimiter)
  .filter((folder) => folder && !fs.existsSync(path.join(folder, 'gradlint')))
  .join(path.delimiter);

// `timeout` in the RUN line stops the driver with SIGTERM: exit, so that the exit handlers
// below stop code-server and Chromium too.
// Say where it stopped, since the step's own wait did not get to.
const stopped = (signal, status) => () => {
  console.log(`FAIL: ${step}: stopped by ${signal} (the RUN line's timeout?)`);
  process.exit(status);
};
process.on('SIGTERM', stopped('SIGTERM', 124));
process.on('SIGINT', stopped('SIGINT', 130));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// The current step, for failures; each step's start time goes to stderr (lit shows it when
// the test fails), to tell a slow machine from a stuck step.
let step = 'start';
const started = Date.now();
function setStep(name) {
  step = name;
  console.error(`drive.js: ${((Date.now() - started) / 1000).toFixed(1)} s: ${name}`);
}
let page;

// Waits until fn(arg), run in the page, returns something truthy, and returns it; fails the
// step with `what` after `seconds`.
async function until(what, fn, arg, seconds = 30) {
  try {
    const handle = await page.waitForFunction(fn, { timeout: seconds * 1000, polling: 200 }, arg);
    return await handle.jsonValue();
  } catch (error) {
    throw new Error(`${what} (not within ${seconds} s)`);
  }
}

// A key chord as VS Code's keybindings write it: "Control+Shift+M".
async function chord(keys) {
  const parts = keys.split('+');
  for (const key of parts.slice(0, -1)) await page.keyboard.down(key);
  await page.keyboard.press(parts[parts.length - 1]);
  for (const key of parts.slice(0, -1).reverse()) await page.keyboard.up(key);
}

// Quick Open (Ctrl+P): type a file name, wait for it in the list, open it.
async function openFile(name) {
  await chord('Control+P');
  await until('the Quick Open box', () => document.querySelector('.quick-input-widget input:focus'));
  await page.keyboard.type(name);
  await until(`${name} in Quick Open`, (wanted) =>
    [...document.querySelectorAll('.quick-input-list .monaco-list-row')]
      .some((row) => row.textContent.includes(wanted)), name);
  await page.keyboard.press('Enter');
  await until(`${name}'s editor tab`, (wanted) =>
    [...document.querySelectorAll('.tabs-container .tab.active')]
      .some((tab) => tab.textContent.includes(wanted)), name);
}

// Installed in the page before VS Code loads: the rows of the Problems view, one string each,
// indented by tree level: a file ("caller.py"), its problems ("message gradlint GL101 [Ln 5,
// Col 5]") and their related information ("helper.py [Ln 6, Col 5] message").
function installProblemRows() {
  window.problemRows = () => [...document.querySelectorAll('.markers-panel .monaco-list-row')]
    .map((row) => {
      const parts = [...row.querySelectorAll('.label-name, .marker-message, .marker-source, ' +
        '.marker-code, .related-info-resource, .marker-line, .marker-description')]
        .map((part) => part.textContent.trim()).filter(Boolean);
      return '  '.repeat(Number(row.getAttribute('aria-level') || 1) - 1) + parts.join(' ');
    });
}

function statusText() {
  return [...document.querySelectorAll('.statusbar-item')]
    .map((item) => item.getAttribute('aria-label') || '')
    .find((label) => label.includes('gradlint'));
}

// The extension's output channel, as VS Code writes it to the log folder.
function extensionLog() {
  const found = [];
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'gradlint.log') found.push(full);
    }
  };
  walk(path.join(userData, 'logs'));
  return found.map((file) => fs.readFileSync(file, 'utf8')).join('');
}

async function main() {
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  // A quiet, offline workbench: no trust prompt, welcome page, chat panel or update checks.
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.tips.enabled': false,
    'chat.disableAIFeatures': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'files.autoSave': 'off',
  }, null, 2));

  setStep('install the VSIX');
  const install = spawnSync(process.execPath, [codeServer, '--user-data-dir', userData,
    '--extensions-dir', extensions, '--install-extension', options.vsix],
  { env: environment, encoding: 'utf8' });
  if (install.status !== 0 || !/successfully installed/.test(install.stdout)) {
    throw new Error(`code-server --install-extension failed:\n${install.stdout}${install.stderr}`);
  }

  setStep('start code-server');
  const server = spawn(process.execPath, [codeServer, '--auth', 'none', '--bind-addr', '127.0.0.1:0',
    '--user-data-dir', userData, '--extensions-dir', extensions, '--disable-telemetry',
    '--disable-update-check', '--disable-workspace-trust', options.project],
  { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  process.on('exit', () => server.kill());
  let serverLog = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 30 s:\n${serverLog}`)), 30000);
    const read = (data) => {
      serverLog += data;
      const match = /HTTP server listening on (http:\/\/\S+)/.exec(serverLog);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.on('exit', (code) => reject(new Error(`code-server exited (${code}):\n${serverLog}`)));
  });

  setStep('open the workbench');
  const browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${path.join(options.work, 'chromium')}`],
    defaultViewport: { width: 1400, height: 900 },
    timeout: 60000,
  });
  process.on('exit', () => browser.process()?.kill());
  page = await browser.newPage();
  await page.evaluateOnNewDocument(installProblemRows);
  // Slow machines: the page's scripts load for a while; the workbench wait below is the check.
  await page.goto(`${url}?folder=${encodeURIComponent(options.project)}`,
    { waitUntil: 'domcontentloaded', timeout: 90000 });
  await until('the workbench', () => document.querySelector('.monaco-workbench .part.editor'), null, 60);
  await until('the Explorer', () => document.querySelector('.explorer-folders-view .monaco-list-row'), null, 60);

  setStep('no gradlint yet');
  await openFile('caller.py');
  const missing = await until('the "no gradlint executable" message', () =>
    [...document.querySelectorAll('.notification-list-item-message')]
      .map((item) => item.textContent).find((text) => text.includes('gradlint')));
  console.log(`message: ${missing}`);
  console.log(`status: ${await until('the status bar item', statusText)}`);

  setStep('select the Python environment');
  // Without the Python extension (code-server has none), python.defaultInterpreterPath is the
  // environment; changing it restarts the server, which now finds ENV/bin/gradlint.
  fs.mkdirSync(path.join(options.project, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(options.project, '.vscode', 'settings.json'),
    JSON.stringify({ 'python.defaultInterpreterPath': options.python }, null, 2));
  console.log(`status: ${await until('the server running', () =>
    [...document.querySelectorAll('.statusbar-item')]
      .map((item) => item.getAttribute('aria-label') || '')
      .find((label) => label.includes('gradlint') && label.startsWith('check')))}`);

  // Dismiss the message (VS Code keeps it up): it would cover the screenshot.
  await page.$$eval('.notifications-toasts .codicon-notifications-clear', (buttons) =>
    buttons.forEach((button) => button.click()));

  setStep('GL101 in the Problems view');
  await chord('Control+Shift+M');
  const rows = await until('GL101 and its related location in the Problems view', () => {
    const labels = window.problemRows();
    return labels.some((label) => label.includes('GL101')) &&
      labels.some((label) => label.includes('helper.py')) && labels;
  });
  for (const row of rows) console.log(`problem: ${row}`);

  setStep('quick fix');
  // Focus the editor, go to the diagnostic (F8 moves the cursor there and opens its peek,
  // which Escape closes), then open the code actions at the cursor (Ctrl+.).
  await page.click('.editor-instance .monaco-editor .view-lines');
  await chord('Control+Home');
  await page.keyboard.press('F8');
  await until('the problem peek', () => document.querySelector('.marker-widget'));
  await page.keyboard.press('Escape');
  // Ctrl+. can reach VS Code while the peek is still closing, and then does nothing: try again
  // (a few times, as a user would) until the menu is up.
  let actions;
  for (let attempt = 1; !actions; ++attempt) {
    await chord('Control+.');
    try {
      actions = await until('the code actions', () => {
        const titles = [...document.querySelectorAll('.action-widget .monaco-list-row')]
          .map((row) => row.getAttribute('aria-label') || row.textContent.trim()).filter(Boolean);
        return titles.length > 0 && titles;
      }, null, 5);
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
  for (const title of actions) console.log(`action: ${title}`);
  const wanted = actions.find((title) => title.startsWith('Disable GL101'));
  if (!wanted) throw new Error('no "Disable GL101 for this line" action');
  // Click it (the menu's rows include headers, such as "Quick Fix"), then save.
  const row = await page.evaluateHandle((title) => [...document.querySelectorAll('.action-widget .monaco-list-row')]
    .find((item) => (item.getAttribute('aria-label') || item.textContent.trim()) === title), wanted);
  await row.asElement().click();
  await chord('Control+S');
  const caller = path.join(options.project, 'caller.py');
  const deadline = Date.now() + 20000;
  let text = fs.readFileSync(caller, 'utf8');
  while (!text.includes('noqa') && Date.now() < deadline) {
    await sleep(200);
    text = fs.readFileSync(caller, 'utf8');
  }
  for (const line of text.split('\n')) if (line.includes('noqa')) console.log(`fixed: ${line}`);
  await until('GL101 gone from the Problems view after the fix', () =>
    !window.problemRows().some((label) => label.includes('caller.py')));
  console.log('problems after the fix: none in caller.py');

  setStep('notebook');
  await openFile('train.ipynb');
  // Each cell of the notebook editor is a list row (data-index: its place in the notebook,
  // markdown included); a diagnostic shows as a squiggle in its cell's editor.
  const cells = await until('a squiggle in a notebook cell', () => {
    const rows = [...document.querySelectorAll('.notebook-editor .cell-list-container .monaco-list-row')];
    const marked = rows.filter((row) => row.querySelector('.squiggly-error'));
    return marked.length > 0 && rows.map((row) => ({
      index: Number(row.getAttribute('data-index')),
      markdown: row.classList.contains('markdown-cell-row'),
      squiggle: !!row.querySelector('.squiggly-error'),
      text: [...row.querySelectorAll('.view-line')]
        .map((line) => line.textContent.replace(/\u00a0/g, ' ')).join(' | '),
    }));
  }, null, 40);
  for (const cell of cells.sort((a, b) => a.index - b.index)) {
    const what = cell.markdown ? ' (markdown)' : cell.squiggle ? ' squiggle' : '';
    console.log(`cell ${cell.index + 1}${what}: ${cell.text}`);
  }
  const notebookRows = await until('the notebook\'s problem', () => {
    const labels = window.problemRows();
    return labels.some((label) => label.includes('GL101')) && labels;
  });
  for (const row of notebookRows) console.log(`notebook problem: ${row}`);

  setStep('restart');
  // The command palette's "gradlint: Restart Server": a new server, found the same way, which
  // shows the notebook's finding again.
  await chord('Control+Shift+P');
  await until('the command palette', () => document.querySelector('.quick-input-widget input:focus'));
  await page.keyboard.type('gradlint: Restart Server');
  await until('the restart command in the palette', () =>
    [...document.querySelectorAll('.quick-input-list .monaco-list-row')]
      .some((row) => row.textContent.includes('gradlint: Restart Server')));
  await page.keyboard.press('Enter');
  const starts = () => extensionLog().split('\n').filter((line) => line.includes('] Starting ')).length;
  for (const deadline = Date.now() + 30000; starts() < 2; await sleep(200)) {
    if (Date.now() > deadline) throw new Error('no second server start in the log within 30 s');
  }
  await until('the squiggle in cell 3 after the restart', () => document.querySelector(
    '.notebook-editor .cell-list-container .monaco-list-row[data-index="2"] .squiggly-error'));
  console.log(`restart: ${await until('the server running', () =>
    [...document.querySelectorAll('.statusbar-item')]
      .map((item) => item.getAttribute('aria-label') || '')
      .find((label) => label.includes('gradlint') && label.startsWith('check')))}`);

  setStep('screenshot');
  await page.screenshot({ path: options.screenshot });
  for (const line of extensionLog().split('\n')) {
    if (/Starting |Restarting |No gradlint executable/.test(line)) {
      console.log(`log: ${line.replace(/^\S+ \S+ /, '')}`);
    }
  }
  await browser.close();
  server.kill();
}

main().then(() => {
  setStep('done');
  process.exit(0);
}, async (error) => {
  console.log(`FAIL: ${step}: ${error.message}`);
  if (page) {
    await page.screenshot({ path: options.screenshot.replace(/\.png$/, '-failure.png') }).catch(() => {});
    // The page as it was, to find what changed in VS Code's markup.
    const html = await page.content().catch(() => '');
    fs.writeFileSync(path.join(options.work, 'failure.html'), html);
  }
  try {
    console.log(`extension log:\n${extensionLog()}`);
  } catch {
    // No log folder yet.
  }
  process.exit(1);
});
