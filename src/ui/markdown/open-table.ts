/** The open block when it is a table (see block.ts). */
import type { Tokens } from 'marked';
import { lex } from './markdown';
import { nodes } from './nodes';
import type { Links, OpenBlock } from './block';
import { appendPlain, plainText, type PlainText } from './plain-text';
import { isTable } from './tokens';

/** Finished rows per segment of a streamed table (see `tableBlock`). */
const SEGMENT_ROWS = 8;
/** Finished rows whose layout sets the frozen column widths. */
const FREEZE_ROWS = 32;

/**
 * Chromium lays out a `<table>` whole when a row is added, so a streamed table is split while it
 * grows: once FREEZE_ROWS rows are finished, the column widths are measured (once) and frozen
 * (`table-layout: fixed` + `<colgroup>`), and later rows go into further tables of SEGMENT_ROWS
 * rows with the same widths inside its scrolling wrapper (`md-table`, which every table has), so
 * an update lays out only the last segment. When the table is complete its rows move back into one
 * table in slices (`settle`), then its widths are automatic again: the whole render's DOM, reached
 * with no element moved out of the wrapper.
 */
export function tableBlock(token: Tokens.Table, links: Links): OpenBlock | null {
  const lines = token.raw.split('\n');
  if (lines.length < 3) return null; // the delimiter row is still being written
  const head = `${lines[0]}\n${lines[1]}\n`;
  const columns = token.header.length;
  // The header is rendered once (below); the rows are lexed under a stand-in header with as many
  // cells and the same delimiter row (alignments), so an update does not lex the real one again.
  const standIn = `|${' a |'.repeat(columns)}\n${lines[1]}\n`;
  let lastHead = head.length; // the header's length in `last.raw`
  const wrapper = nodes([{ ...token, rows: [] }], links, () => null).firstElementChild;
  const table = wrapper?.firstElementChild;
  if (!(wrapper instanceof HTMLElement) || !(table instanceof HTMLTableElement)) return null;
  let body: HTMLTableSectionElement | null = null;
  let live: Element[] = [];
  let frozen = head.length; // chars of the block whose rows are in `body` for good
  let frozenRows = 0; // finished rows in `body`
  let last = token; // header + the rows after `frozen`
  let colgroup: HTMLTableColElement | null = null; // the frozen widths, once frozen
  /** The cell being written in the open row (its text when plain, null when still empty). */
  let cell: { row: HTMLTableRowElement; index: number; text: PlainText | null } | null = null;

  /** Freezes the column widths as laid out now (the wrapper then holds fixed-width segments). */
  const freeze = () => {
    const cells = [...(table.tHead?.rows[0]?.cells ?? [])];
    const rects = cells.map((cell) => cell.getBoundingClientRect());
    const widths = rects.map((r) => r.width);
    if (widths.length === 0 || widths.some((w) => !(w > 0))) return; // not laid out
    const tableWidth = (rects.at(-1)?.right ?? 0) - (rects[0]?.left ?? 0);
    colgroup = document.createElement('colgroup');
    for (const width of widths) {
      const col = document.createElement('col');
      col.style.width = `${width}px`;
      colgroup.append(col);
    }
    wrapper.classList.add('md-table-stream');
    // The attribute, not the CSSOM (whose lazy sync leaves `style=""` after `removeAttribute`).
    wrapper.setAttribute('style', `--md-table-width: ${tableWidth}px`);
    fix(table);
  };
  const fix = (t: HTMLTableElement) => {
    if (colgroup) t.prepend(colgroup.cloneNode(true));
  };
  /** Starts the next segment: a table of the same widths. */
  const segment = () => {
    const next = document.createElement('table');
    fix(next);
    body = document.createElement('tbody');
    next.append(body);
    wrapper.append(next);
    frozenRows = 0;
  };

  return {
    element: wrapper,
    lex(tail, known) {
      if (!tail.startsWith(head)) return null;
      const tokens = lex(standIn + tail.slice(frozen), known);
      const first = tokens[0];
      if (!isTable(first) || !first.raw.startsWith(standIn)) return null;
      if (first.header.length !== columns) return null;
      last = first;
      lastHead = standIn.length;
      tokens[0] = { ...first, raw: tail.slice(0, frozen) + first.raw.slice(standIn.length) };
      return tokens;
    },
    sync(final) {
      // Layout is clean here (the last update was laid out): measure before changing anything.
      if (!final && frozenRows >= (colgroup ? SEGMENT_ROWS : FREEZE_ROWS) && wrapper.isConnected) {
        if (!colgroup) freeze();
        if (colgroup) segment();
      }
      for (const row of live) row.remove();
      live = [];
      const rows = last.rows;
      if (rows.length > 0) {
        const rendered = nodes([last], links, () => wrapper).querySelectorAll('tbody > tr');
        if (!body) {
          body = document.createElement('tbody');
          table.append(body);
        }
        const done = final || last.raw.endsWith('\n') ? rows.length : rows.length - 1;
        const rowLines = last.raw.slice(lastHead).split('\n');
        rendered.forEach((tr, i) => {
          body?.append(tr);
          if (i < done) {
            frozen += (rowLines[i]?.length ?? 0) + 1;
            frozenRows++;
          } else live.push(tr);
        });
        const row = live.at(-1);
        cell = !final && row instanceof HTMLTableRowElement ? lastCell(row, rowLines.at(-1)) : null;
      } else cell = null;
    },
    settle(size) {
      // The segments' rows go back into the first table, a few at a time (each move styles the
      // rows moved and lays out the first table, still of fixed widths); then automatic widths.
      if (!colgroup) return true;
      const first = table.tBodies[0];
      for (let moved = 0; moved < size;) {
        const next = table.nextElementSibling;
        if (!(next instanceof HTMLTableElement)) break;
        const row = next.tBodies[0]?.rows[0];
        if (row && first) {
          first.append(row);
          moved++;
        } else next.remove();
      }
      if (table.nextElementSibling) return false;
      table.querySelector('colgroup')?.remove();
      wrapper.classList.remove('md-table-stream');
      wrapper.removeAttribute('style');
      colgroup = null;
      return true;
    },
    append(delta) {
      if (!cell) return false;
      if (/^ *\|$/.test(delta)) {
        // The cell ends: the row shows the same (a missing cell is rendered empty); the next one,
        // already there and empty, is the one being written.
        const next = cell.row.cells[cell.index + 1];
        if (cell.index + 1 >= columns || !next || next.childNodes.length > 0) return false;
        cell = { row: cell.row, index: cell.index + 1, text: null };
        return true;
      }
      if (cell.text) return appendPlain(cell.text, delta);
      // The first words of an empty cell (shown trimmed).
      const source = delta.trimStart();
      const node = document.createTextNode(source);
      const text = source ? plainText(node, source, false) : null;
      if (!text) return false;
      cell.row.cells[cell.index]?.append(node);
      cell.text = text;
      return true;
    },
  };

  /** The cell being written in `row` (the source line `line`), when plain or empty. */
  function lastCell(row: HTMLTableRowElement, line = ''): typeof cell {
    // An escaped pipe does not split cells; marked splits at every other pipe (in code spans too).
    if (line.includes('\\')) return null;
    const parts = line.split('|');
    const index = parts.length - 1 - (line.trimStart().startsWith('|') ? 1 : 0);
    const td = index < columns ? row.cells[index] : undefined;
    const source = (parts.at(-1) ?? '').trimStart();
    if (!td) return null;
    if (source === '' && td.childNodes.length === 0) return { row, index, text: null };
    const text =
      td.childNodes.length === 1 ? plainText(td.firstChild ?? undefined, source, false) : null;
    return text ? { row, index, text } : null;
  }
}
