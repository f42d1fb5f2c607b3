// Finding the `gradlint` executable: the `gradlint.path` setting, else the `gradlint` in the
// selected Python environment's bin/ (where `pip install` puts it), else PATH.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';

const executableName = process.platform === 'win32' ? 'gradlint.exe' : 'gradlint';

export interface Found {
  // The executable, or undefined when none was found.
  executable?: string;
  // Where it came from, for the log and the status bar's tooltip.
  source?: string;
  // Each place looked at and why it did not fit, in order: the "not found" message lists them.
  tried: string[];
  // A setting that names something unusable: reported as such, with no fallback, because
  // running another gradlint than the one configured would hide the mistake.
  error?: string;
}

// The part of the Python extension's API (ms-python.python, `environments`) used here; typed
// here rather than through @vscode/python-extension, a dependency for two calls.
interface PythonEnvironmentsApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(
      environment: { path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

function searchPath(): string[] {
  return (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) return false;
    await fs.promises.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// `~`, `${workspaceFolder}` and `${userHome}` as VS Code users write them; a relative path is
// taken from the workspace folder.
export function expandPath(value: string, folder?: vscode.WorkspaceFolder): string {
  let expanded = value.trim();
  const folderPath = folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (expanded === '~' || expanded.startsWith('~/')) expanded = os.homedir() + expanded.slice(1);
  expanded = expanded.replace(/\$\{userHome\}/g, os.homedir());
  if (folderPath) expanded = expanded.replace(/\$\{workspaceFolder\}/g, folderPath);
  if (!path.isAbsolute(expanded) && folderPath && expanded.includes(path.sep)) {
    expanded = path.join(folderPath, expanded);
  }
  return expanded;
}

// The Python interpreter of the workspace: the Python extension's selected environment when it
// is installed, else the `python.defaultInterpreterPath` setting. `from` says which, for the log;
// `interpreter` is undefined when there is none (a bare command such as "python" names no
// environment).
async function pythonInterpreter(
  folder: vscode.WorkspaceFolder | undefined,
  log: vscode.LogOutputChannel,
): Promise<{ interpreter?: string; from: string }> {
  const extension = vscode.extensions.getExtension<PythonEnvironmentsApi>('ms-python.python');
  if (extension) {
    try {
      const api = extension.isActive ? extension.exports : await extension.activate();
      const environments = api?.environments;
      if (environments) {
        const active = environments.getActiveEnvironmentPath(folder?.uri);
        const resolved = await environments.resolveEnvironment(active);
        const interpreter = resolved?.executable.uri?.fsPath;
        return { interpreter, from: 'the Python extension\'s selected environment' };
      }
    } catch (error) {
      log.warn(`The Python extension did not give its environment: ${String(error)}`);
    }
  }
  // In an untrusted workspace only the user's own value counts: the workspace's could point at
  // a gradlint shipped in the workspace itself (gradlint.path is restricted for the same reason,
  // in package.json).
  const setting = vscode.workspace.getConfiguration('python', folder);
  const configured = vscode.workspace.isTrusted
    ? setting.get<string>('defaultInterpreterPath')
    : setting.inspect<string>('defaultInterpreterPath')?.globalValue;
  if (!configured || !/[\\/]/.test(configured)) {
    return { from: `python.defaultInterpreterPath (${configured ? `"${configured}", a bare command` : 'not set'})` };
  }
  return { interpreter: expandPath(configured, folder), from: 'python.defaultInterpreterPath' };
}

export async function findGradlint(
  folder: vscode.WorkspaceFolder | undefined,
  log: vscode.LogOutputChannel,
): Promise<Found> {
  const tried: string[] = [];
  const config = vscode.workspace.getConfiguration('gradlint', folder);

  const setting = config.get<string>('path', '').trim();
  if (setting) {
    // A bare name ("gradlint-dev") is a command, looked up on PATH.
    const candidates = /[\\/~]|\$\{/.test(setting)
      ? [expandPath(setting, folder)]
      : searchPath().map((directory) => path.join(directory, setting));
    for (const executable of candidates) {
      if (await isExecutableFile(executable)) {
        return { executable, source: 'the gradlint.path setting', tried };
      }
    }
    const named = /[\\/~]|\$\{/.test(setting)
      ? `${candidates[0]}, which is not an executable file`
      : `"${setting}", which is no command on PATH`;
    return {
      tried: [`gradlint.path: ${named}`],
      error: `The gradlint.path setting names ${named}.`,
    };
  }
  tried.push('gradlint.path: not set');

  // The environment's scripts sit next to its interpreter (venv/bin/python and venv/bin/gradlint).
  // The interpreter is not resolved through symlinks: venv/bin/python links to the base Python.
  const { interpreter, from } = await pythonInterpreter(folder, log);
  if (interpreter) {
    const candidate = path.join(path.dirname(interpreter), executableName);
    if (await isExecutableFile(candidate)) {
      return { executable: candidate, source: `the Python environment (${from})`, tried };
    }
    tried.push(`the Python environment's ${candidate} (from ${from}): not there`);
  } else {
    tried.push(`the Python environment: none, from ${from}`);
  }

  for (const directory of searchPath()) {
    const candidate = path.join(directory, executableName);
    if (await isExecutableFile(candidate)) return { executable: candidate, source: 'PATH', tried };
  }
  tried.push(`PATH: ${process.env.PATH || '(empty)'}`);
  return { tried };
}

// Fires when the Python extension's selected environment changes (the server may be another).
export function onPythonEnvironmentChange(listener: () => void): vscode.Disposable | undefined {
  const extension = vscode.extensions.getExtension<PythonEnvironmentsApi>('ms-python.python');
  const event = extension?.isActive ? extension.exports?.environments?.onDidChangeActiveEnvironmentPath : undefined;
  return event ? event(() => listener()) : undefined;
}
