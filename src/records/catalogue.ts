import { DECLARED_KINDS } from './kinds/index.ts';

/**
 * Every kind of record the bus carries, derived from the declarations (src/records/kinds/): a
 * kind is declared once, and every list of kinds, topics and tables is read from here.
 */
type Declared = (typeof DECLARED_KINDS)[number];

export type RecordKind = Declared['name'];

/** The declaration of kind K. */
export type DeclarationOf<K extends RecordKind> = Extract<Declared, { name: K }>;

type Names<T extends readonly unknown[]> = { [I in keyof T]: T[I] extends { name: infer N } ? N : never };

/** Every kind's name, in the declarations' order. */
export const RECORD_KINDS = DECLARED_KINDS.map((d) => d.name) as unknown as Names<typeof DECLARED_KINDS>;

/** Each kind's declaration, by name. */
export const DECLARATIONS = Object.fromEntries(DECLARED_KINDS.map((d) => [d.name, d])) as unknown as {
  readonly [K in RecordKind]: DeclarationOf<K>;
};

/** Every table a kind's rows go to (the loaders' `TableName` adds `dead_letters`). */
export type DeclaredTable = Declared['tables'][number];

/** The tables of kind K's rows. */
export type TablesOf<K extends RecordKind> = DeclarationOf<K>['tables'][number];

const KNOWN_KINDS: ReadonlySet<string> = new Set(RECORD_KINDS);

export function isRecordKind(value: string): value is RecordKind {
  return KNOWN_KINDS.has(value);
}

/** Kinds declared twice would make every derived list ambiguous: refuse at load. */
if (KNOWN_KINDS.size !== DECLARED_KINDS.length) throw new Error('a record kind is declared twice');
