"use client";

/** The result of an action the user just took: success in words, failure as an alert. */
export interface Outcome {
  ok: boolean;
  text: string;
}

/**
 * A success goes to a status region that is always in the page (screen readers hear only live
 * regions that exist before they change); a failure is an alert. `testId` names both for tests
 * (`<testId>-outcome`, `<testId>-error`). The lenses page uses it too.
 */
export function OutcomeMessage({ outcome, testId }: { outcome: Outcome | null; testId?: string }) {
  return (
    <>
      <div role="status" data-testid={testId && `${testId}-outcome`} className={outcome?.ok ? "text-sm text-green-900" : "sr-only"}>
        {outcome?.ok ? outcome.text : ""}
      </div>
      {outcome && !outcome.ok ? (
        <p role="alert" data-testid={testId && `${testId}-error`} className="rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-900">
          {outcome.text}
        </p>
      ) : null}
    </>
  );
}
