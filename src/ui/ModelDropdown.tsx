import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';

export interface DropdownOption {
  value: string;
  label: string;
  hint?: string | undefined;
}

export interface ModelDropdownProps {
  options: readonly DropdownOption[];
  /** Controlled value; blank or whitespace-only = no selection. Omit for uncontrolled use. */
  value?: string | undefined;
  defaultValue?: string;
  onChange?: (value: string) => void;
  /** PRODUCT.md §2: 'Choose LLM model' on the start screen; 'Select an LLM Model' in the other variant. */
  placeholder?: string;
  disabled?: boolean;
  label?: string;
}

/**
 * Reusable model dropdown: placeholder variants, optional disabled state,
 * closes on outside click and Escape, 'No models available' for an empty list, controlled or
 * uncontrolled. Width 18rem, list max height 16rem (styles.css). Keyboard: arrows, Enter, Home/End.
 */
export function ModelDropdown({
  options,
  value,
  defaultValue = '',
  onChange,
  placeholder = 'Select an LLM Model',
  disabled = false,
  label = 'Model',
}: ModelDropdownProps) {
  const [inner, setInner] = useState(defaultValue);
  const current = (value ?? inner).trim();
  const selected = current ? options.find((o) => o.value === current) : undefined;
  const [openState, setOpen] = useState(false);
  // Disabling closes the list (derived, no effect needed).
  const open = openState && !disabled;
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const listId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (e: PointerEvent) => {
      const inside = e.target instanceof Node && root.current?.contains(e.target);
      if (root.current && !inside) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  const choose = (v: string) => {
    if (value === undefined) setInner(v);
    onChange?.(v);
    setOpen(false);
    button.current?.focus();
  };

  const openList = () => {
    if (disabled) return;
    const index = options.findIndex((o) => o.value === current);
    setActive(index >= 0 ? index : 0);
    setOpen(true);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (disabled) return;
    if (!open) {
      if (['ArrowDown', 'ArrowUp', 'Enter', ' '].includes(e.key)) {
        e.preventDefault();
        openList();
      }
      return;
    }
    const last = options.length - 1;
    if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive((a) => Math.min(a + 1, last));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === 'Home') {
      e.preventDefault();
      setActive(0);
    } else if (e.key === 'End') {
      e.preventDefault();
      setActive(last);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      const option = options[active];
      if (option) choose(option.value);
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  return (
    <div className="dropdown" ref={root}>
      <button
        ref={button}
        type="button"
        className="dropdown-button"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-label={`${label}: ${selected ? selected.label : placeholder}`}
        aria-activedescendant={open && options[active] ? `${listId}-${active}` : undefined}
        disabled={disabled}
        onClick={() => (open ? setOpen(false) : openList())}
        onKeyDown={onKeyDown}
      >
        <span className={selected ? 'dropdown-value' : 'dropdown-placeholder'}>
          {selected ? selected.label : placeholder}
        </span>
        <span aria-hidden="true" className="dropdown-caret">
          ▾
        </span>
      </button>
      {open && (
        <ul className="dropdown-list" role="listbox" id={listId} aria-label={label}>
          {options.length === 0 ? (
            <li className="dropdown-empty" role="option" aria-disabled="true" aria-selected="false">
              No models available
            </li>
          ) : (
            options.map((o, i) => (
              <li
                key={o.value}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={o.value === current}
                className={`dropdown-option${i === active ? ' is-active' : ''}`}
                onPointerEnter={() => setActive(i)}
                onClick={() => choose(o.value)}
              >
                <span>{o.label}</span>
                {o.hint && <span className="dropdown-hint">{o.hint}</span>}
              </li>
            ))
          )}
        </ul>
      )}
    </div>
  );
}
