import { readFileSync } from 'node:fs';
import { ENVIRONMENTS, type Environment } from '../auth/principal.js';
import { InvalidDocumentError, type DocumentOrigin } from '../db/environment-documents.js';
import { CliError, parseAction, required } from './command.js';

/** The reference documents of an environment as the admin commands handle them (db/environment-documents.ts). */
export interface AdminDocuments<Doc> {
  import(environment: Environment, text: string, fileName: string): Promise<object>;
  origin(environment: Environment): Promise<DocumentOrigin>;
  of(environment: Environment): Promise<Doc>;
}

/**
 * `<document> import|show --environment <env> [--file <file>]`: `import` reads the file and
 * replaces the environment's document with it, printing what it holds (the area's counts);
 * a file that breaks a rule exits 2 with each problem on stderr, and nothing is stored.
 * `show` prints the document in short (`summary`) and where it came from.
 */
export async function runDocumentCommand<Doc>(
  documents: AdminDocuments<Doc>,
  rest: string[],
  kind: { noun: string; summary(document: Doc): object },
): Promise<unknown> {
  const { action, values } = parseAction(rest, ['import', 'show'], ['environment', 'file']);
  if (!ENVIRONMENTS.includes(values.environment as Environment)) throw new CliError('--environment must be sandbox or production', 2);
  const environment = values.environment as Environment;
  if (action === 'show') {
    if (values.file !== undefined) throw new CliError('--file is for import only', 2);
    const [origin, document] = await Promise.all([documents.origin(environment), documents.of(environment)]);
    return { environment, source: origin.source, imported_at: origin.imported_at, ...kind.summary(document) };
  }
  const file = required(values, 'file');
  return { environment, ...(await importFile(file, `a valid ${kind.noun}`, (text) => documents.import(environment, text, file))) };
}

/**
 * Imports the file `--file` names with `run`: a file that cannot be read, or that `run`
 * refuses as invalid (nothing imported), is a usage error (exit 2) listing each problem.
 */
export async function importFile<T>(file: string, what: string, run: (text: string) => Promise<T>): Promise<T> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`--file ${file} cannot be read: ${(error as Error).message}`, 2);
  }
  try {
    return await run(text);
  } catch (error) {
    if (!(error instanceof InvalidDocumentError)) throw error;
    throw new CliError(`${file} is not ${what}; nothing was imported (${error.problems.length} problem(s)):\n${error.problems.join('\n')}`, 2);
  }
}
