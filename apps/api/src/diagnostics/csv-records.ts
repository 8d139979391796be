/** One record of a CSV file: its fields, and the line it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export type CsvReading = { records: CsvRecord[]; problem?: undefined } | { records?: undefined; problem: { line: number; message: string } };

/**
 * Reads CSV as RFC 4180 writes it: fields separated by commas, records by CRLF (LF or a lone
 * CR are taken too), a field in double quotes may hold commas, line breaks and quotes
 * (doubled: `"say ""hi"""`). A quote anywhere else, text after a closing quote or a quote
 * never closed is a problem naming its line; the first one ends the reading, since what
 * follows cannot be trusted. A line break at the end of the file starts no record.
 */
export function readCsvRecords(text: string): CsvReading {
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  let fields: string[] = [];
  let recordLine = 1;
  /** The length of the line break at `at` (0: none). */
  const lineBreak = (at: number) => (text[at] === '\r' ? (text[at + 1] === '\n' ? 2 : 1) : text[at] === '\n' ? 1 : 0);

  while (i <= text.length) {
    let field = '';
    if (text[i] === '"') {
      const opened = line;
      i++;
      for (;;) {
        if (i >= text.length) return { problem: { line: opened, message: 'a quoted field opened on this line is never closed' } };
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        const br = lineBreak(i);
        if (br) line++;
        field += text.slice(i, i + (br || 1));
        i += br || 1;
      }
      if (i < text.length && text[i] !== ',' && !lineBreak(i)) {
        return { problem: { line, message: 'a closing quote must be followed by a comma or the end of the line (a quote inside a quoted field is doubled: "")' } };
      }
    } else {
      while (i < text.length && text[i] !== ',' && !lineBreak(i)) {
        if (text[i] === '"') return { problem: { line, message: 'a quote inside a field that does not start with one (quote the whole field and double the quote: "a ""b"" c")' } };
        field += text[i];
        i++;
      }
    }
    fields.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    // The end of a record: a line break, or the end of the text.
    const br = lineBreak(i);
    records.push({ line: recordLine, fields });
    fields = [];
    if (!br) break;
    i += br;
    line++;
    recordLine = line;
    if (i === text.length) break;
  }
  return { records };
}
