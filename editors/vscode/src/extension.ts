// gradlint for VS Code: runs `gradlint server` (docs/integrations/editors.md) for Python files
// and the Python cells of Jupyter notebooks. Diagnostics, quick fixes, `# noqa` actions and hover
// all come from the server; this file finds the executable, starts and restarts the server, and
// shows its state.
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { findGradlint, onPythonEnvironmentChange } from './binary';

const installUrl = 'https://github.com/gradlint/gradlint#install';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;
// Starts and stops run one at a time, in order: a restart while the server is starting must not
// leave two servers running.
let queue: Promise<void> = Promise.resolve();

function setStatus(text: string, tooltip: string, error = false): void {
  status.text = text;
  status.tooltip = tooltip;
  status.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (!running) return;
  try {
    await running.stop(2000);
  } catch (error) {
    output.warn(`Stopping the server: ${String(error)}`);
  }
  await running.dispose().catch(() => undefined);
}

async function start(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const config = vscode.workspace.getConfiguration('gradlint', folder);
  if (!config.get<boolean>('enable', true)) {
    output.info('gradlint.enable is false: the server is not started.');
    setStatus('$(circle-slash) gradlint', 'gradlint is disabled (gradlint.enable)');
    return;
  }

  setStatus('$(sync~spin) gradlint', 'gradlint: looking for the executable');
  const found = await findGradlint(folder, output);
  if (!found.executable) {
    const why = found.error ?? 'No gradlint executable was found.';
    output.error(`${why} Looked at:\n  ${found.tried.join('\n  ')}`);
    setStatus('$(error) gradlint', `${why} Click for the log.`, true);
    const message = found.error
      ? `${why} Fix the setting, or clear it to use the Python environment's gradlint or PATH.`
      : 'gradlint: no gradlint executable found in the selected Python environment or on PATH. ' +
        // The PyPI name `gradlint` is another project: name ours.
        'Install gradlint there (pip install torch-gradlint; see "Install" in its README), or ' +
        'set "gradlint.path" to the executable.';
    void vscode.window
      .showErrorMessage(message, 'Install gradlint', 'Open Settings', 'Show Log')
      .then((choice) => {
        if (choice === 'Install gradlint') void vscode.env.openExternal(vscode.Uri.parse(installUrl));
        if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'gradlint.path');
        }
        if (choice === 'Show Log') output.show();
      });
    return;
  }

  const args = ['server', ...config.get<string[]>('args', [])];
  output.info(`Starting ${found.executable} ${args.join(' ')} (found through ${found.source})`);
  const serverOptions: ServerOptions = {
    command: found.executable,
    args,
    // The server checks files against the configuration above them, and unsaved buffers as if
    // in the working folder.
    options: folder ? { cwd: folder.uri.fsPath } : undefined,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
      // The Python cells of Jupyter notebooks: synced as notebooks (notebookDocument/*), which
      // the server checks as one module, publishing each cell's findings on that cell. This
      // filter also makes the client pull the cells' diagnostics.
      { notebook: 'jupyter-notebook', language: 'python' },
    ],
    outputChannel: output,
    // The log is there when asked for (status bar, "gradlint: Show Server Log"); a server that
    // fails to start says so in a message of its own (below).
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationFailedHandler: (error) => {
      output.error(`The server failed to initialize: ${String(error)}`);
      return false;
    },
  };
  const next = new LanguageClient('gradlint', 'gradlint', serverOptions, clientOptions);
  next.onDidChangeState((event) => {
    if (client !== next) return;
    if (event.newState === State.Running) {
      const version = next.initializeResult?.serverInfo?.version ?? '?';
      setStatus('$(check) gradlint', `gradlint ${version} (${found.executable}). Click for the log.`);
    } else if (event.newState === State.Stopped) {
      setStatus('$(error) gradlint', 'The gradlint server stopped. Click for the log.', true);
    }
  });
  client = next;
  try {
    await next.start();
  } catch (error) {
    output.error(`Could not start ${found.executable}: ${String(error)}`);
    setStatus('$(error) gradlint', 'The gradlint server did not start. Click for the log.', true);
    void vscode.window
      .showErrorMessage(`gradlint: the server (${found.executable}) did not start.`, 'Show Log')
      .then((choice) => choice && output.show());
  }
}

function restart(): Promise<void> {
  queue = queue.then(stop).then(start).catch((error) => output.error(String(error)));
  return queue;
}

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel('gradlint', { log: true });
  status = vscode.window.createStatusBarItem('gradlint.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'gradlint';
  status.command = 'gradlint.showLog';
  status.show();
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand('gradlint.restart', () => {
      output.info('Restarting the server (gradlint: Restart Server).');
      return restart();
    }),
    vscode.commands.registerCommand('gradlint.showLog', () => output.show()),
    // Trusting the workspace makes its own gradlint.path, gradlint.args and interpreter count.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.info('The workspace is trusted now: restarting the server with its settings.');
      void restart();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // The trace level is read by the client itself; the rest needs a new server.
      if (['enable', 'path', 'args'].some((key) => event.affectsConfiguration(`gradlint.${key}`))) {
        output.info('gradlint settings changed: restarting the server.');
        void restart();
      } else if (
        event.affectsConfiguration('python.defaultInterpreterPath') &&
        !vscode.extensions.getExtension('ms-python.python') &&
        !vscode.workspace.getConfiguration('gradlint').get<string>('path', '').trim()
      ) {
        // Without the Python extension this setting is the environment the server comes from.
        output.info('python.defaultInterpreterPath changed: looking for its gradlint.');
        void restart();
      }
    }),
  );
  // Not awaited: activation (commands, status) does not wait for the server to start.
  void restart().then(() => {
    // After the first lookup, which activates the Python extension when it is installed.
    const subscription = onPythonEnvironmentChange(() => {
      if (vscode.workspace.getConfiguration('gradlint').get<string>('path', '').trim()) return;
      output.info('The Python environment changed: looking for its gradlint.');
      void restart();
    });
    if (subscription) context.subscriptions.push(subscription);
  });
}

export function deactivate(): Promise<void> {
  return queue.then(stop);
}
