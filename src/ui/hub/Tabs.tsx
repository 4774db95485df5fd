import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface TabItem<Id extends string = string> {
  id: Id;
  label: string;
  content: ReactNode;
}

/**
 * WAI-ARIA tabs: a tablist of buttons (arrow keys, Home and End move between them) and one
 * tabpanel per tab. Panels mount when first shown and then stay mounted (hidden), so what was
 * typed in them survives a switch. `Id` is the type of the tabs' ids (e.g. a union of names), so
 * `onSelect` gets one of them.
 */
export function Tabs<Id extends string = string>({
  label,
  tabs,
  initialId,
  selectedId,
  onSelect,
  className,
}: {
  label: string;
  tabs: TabItem<Id>[];
  initialId?: Id;
  /** Controlled use: the selected tab (e.g. from the URL) and the handler that changes it. */
  selectedId?: Id;
  onSelect?: (id: Id) => void;
  className?: string;
}) {
  const prefix = useId();
  const [own, setOwn] = useState<string>(initialId ?? tabs[0]?.id ?? '');
  const chosen: string = selectedId ?? own;
  const setChosen = (id: Id) => (onSelect ? onSelect(id) : setOwn(id));
  const selected = tabs.some((t) => t.id === chosen) ? chosen : (tabs[0]?.id ?? '');
  // A panel mounts when first shown, then stays mounted (hidden) so its state survives.
  const [visited, setVisited] = useState<ReadonlySet<string>>(() => new Set([selected]));
  if (!visited.has(selected)) setVisited(new Set(visited).add(selected));
  const buttons = useRef(new Map<string, HTMLButtonElement>());

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = tabs.findIndex((t) => t.id === selected);
    const next =
      event.key === 'ArrowRight'
        ? (index + 1) % tabs.length
        : event.key === 'ArrowLeft'
          ? (index - 1 + tabs.length) % tabs.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? tabs.length - 1
              : -1;
    const tab = tabs[next];
    if (!tab) return;
    event.preventDefault();
    setChosen(tab.id);
    buttons.current.get(tab.id)?.focus();
  };

  return (
    <div className={className ? `hub-tabs ${className}` : 'hub-tabs'}>
      <div role="tablist" aria-label={label} className="hub-tablist" onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            ref={(el) => {
              if (el) buttons.current.set(tab.id, el);
              else buttons.current.delete(tab.id);
            }}
            type="button"
            role="tab"
            id={`${prefix}-tab-${tab.id}`}
            aria-selected={tab.id === selected}
            aria-controls={`${prefix}-panel-${tab.id}`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => {
              if (tab.id !== selected) setChosen(tab.id);
            }}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`${prefix}-panel-${tab.id}`}
          aria-labelledby={`${prefix}-tab-${tab.id}`}
          hidden={tab.id !== selected}
          tabIndex={0}
          className="hub-tabpanel"
        >
          {visited.has(tab.id) && tab.content}
        </div>
      ))}
    </div>
  );
}
