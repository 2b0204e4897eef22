import { useId } from "react";

/**
 * Why Approve or Reject is disabled, said once (one sentence when both share the reason), with the
 * ids the buttons' aria-describedby point at.
 */
export function useBlockedReasons(approveBlocked: string | null, rejectBlocked: string | null) {
  const approveReasonId = useId();
  const rejectReasonId = useId();
  return {
    approveDescribedBy: approveBlocked ? approveReasonId : undefined,
    rejectDescribedBy: rejectBlocked ? (rejectBlocked === approveBlocked ? approveReasonId : rejectReasonId) : undefined,
    reasons: (className: string) => (
      <>
        {approveBlocked ? (
          <p id={approveReasonId} className={className} data-testid="approve-blocked-reason">
            {approveBlocked}
          </p>
        ) : null}
        {rejectBlocked && rejectBlocked !== approveBlocked ? (
          <p id={rejectReasonId} className={className}>
            {rejectBlocked}
          </p>
        ) : null}
      </>
    ),
  };
}
