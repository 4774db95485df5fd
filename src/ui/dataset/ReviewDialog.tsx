import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * The dataset review in its own wide view: a native modal <dialog> (focus kept inside, Escape
 * closes it, the page behind is inert). Where showModal is missing (jsdom), it is simply open.
 */
export function ReviewDialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    } else if (!open && dialog.open) {
      if (typeof dialog.close === 'function') dialog.close();
      else dialog.removeAttribute('open');
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dataset-review-dialog"
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <div className="dataset-review-head">
        <h3 id={titleId}>{title}</h3>
        <button type="button" onClick={onClose}>
          Close the review
        </button>
      </div>
      <p className="dataset-hint">
        Tab moves through the fields; Alt+↑ / Alt+↓ moves to the same field of the row above or
        below; Escape closes.
      </p>
      {open && children}
    </dialog>
  );
}
