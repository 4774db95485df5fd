import { useId, useMemo, useState } from 'react';
import { ggufQuantType } from '../../hub/gguf-quant-type';
import { ggufQuantTables, type QuantCode } from '../../hub/gguf-quant-tables';

function CodeTable({
  caption,
  rows,
  highlight,
}: {
  caption: string;
  rows: QuantCode[];
  highlight?: string;
}) {
  const hintId = useId();
  return (
    <div>
      <div
        className="hub-table-scroll"
        tabIndex={0}
        role="region"
        aria-label={`${caption}, scrollable`}
        aria-describedby={hintId}
      >
        <table className="hub-quant-table">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Code</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name} className={row.name === highlight ? 'hub-highlight' : undefined}>
                <td>{row.name}</td>
                <td>{row.code}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p id={hintId} className="hub-table-hint">
        {rows.length} codes: scroll the table (or focus it and use the arrow keys) to see them all.
      </p>
    </div>
  );
}

/** Quantization type of a GGUF file name, and the two code tables. */
export function GgufPanel() {
  const field = useId();
  const [fileName, setFileName] = useState('Llama-3.2-1B-Instruct-Q4_K_M.gguf');
  const tables = useMemo(() => ggufQuantTables(), []);
  const quant = ggufQuantType({ fileName });
  return (
    <div className="hub-gguf">
      <div className="hub-toolbar">
        <label htmlFor={field}>GGUF file name</label>
        <input
          id={field}
          value={fileName}
          spellCheck={false}
          onChange={(e) => setFileName(e.target.value)}
        />
      </div>
      <p aria-live="polite" className="hub-gguf-result">
        {fileName.trim() === ''
          ? 'Type a file name.'
          : quant
            ? `Quantization: ${quant.label}${quant.fileType ? ` (file type ${quant.fileType.name} = ${quant.fileType.code})` : ''}`
            : 'No quantization type in this file name.'}
      </p>
      <div className="hub-quant-tables">
        <CodeTable
          caption="File types (general.file_type)"
          rows={tables.fileTypes}
          highlight={quant?.fileType?.name}
        />
        <CodeTable caption="Tensor types (ggml_type)" rows={tables.tensorTypes} />
      </div>
    </div>
  );
}
