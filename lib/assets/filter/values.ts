/** Per-field value parsers: check a value token and convert it to what Prisma expects for the column. */
import type { ApiError } from "@/lib/core/errors";
import { isUuid } from "@/lib/core/ids";
import { STRING_FIELDS, type FilterableAssetField } from "@/lib/assets/filter/fields";
import { filterError, hasWildcard, show, type ValueToken } from "@/lib/assets/filter/lexer";

export type ValueParser<T> = (value: ValueToken, field: FilterableAssetField) => T;

/** The error for a value `field` does not accept; `expected` describes what it does accept. */
function invalidValue(value: ValueToken, field: FilterableAssetField, expected: string): ApiError {
  return filterError(value.pos, `invalid value ${show(value.text)} for field ${show(field)}; ${expected}`);
}

function wildcardHint(value: ValueToken): string {
  return hasWildcard(value) ? `; wildcards (*) are only supported for ${STRING_FIELDS.join(", ")}` : "";
}

/** Parser for a closed set of API values mapped to database values. */
export function enumValues<T>(mapping: Record<string, T>): ValueParser<T> {
  return (value, field) => {
    if (Object.hasOwn(mapping, value.text)) return mapping[value.text]!;
    throw invalidValue(value, field, `expected one of: ${Object.keys(mapping).join(", ")}${wildcardHint(value)}`);
  };
}

export const parseUuid: ValueParser<string> = (value, field) => {
  if (isUuid(value.text)) return value.text.toLowerCase();
  throw invalidValue(value, field, "expected a UUID or null");
};

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/i;
const MAX_DATE_MS = 8.64e15; // the ECMAScript Date range

/** Milliseconds since the epoch, or an ISO-8601 date (UTC midnight) / date-time with a zone designator. */
export const parseDate: ValueParser<Date> = (value, field) => {
  const text = value.text;
  const invalid = () =>
    invalidValue(
      value,
      field,
      "expected milliseconds since the epoch (e.g. 1714521600000) or an ISO-8601 date-time with a time zone (e.g. 2024-05-01T00:00:00Z)",
    );
  if (/^-?\d{1,16}$/.test(text)) {
    const ms = Number(text);
    if (Math.abs(ms) > MAX_DATE_MS) throw invalid();
    return new Date(ms);
  }
  const m = ISO_DATE_TIME.exec(text);
  if (!m) throw invalid();
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const millis = Number(((m[7] ?? "") + "000").slice(0, 3)); // sub-millisecond digits are ignored
  const zone = m[8] ?? "Z";
  if (hour > 23 || minute > 59 || second > 59) throw invalid();
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== "Z") {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMins = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetMins > 59) throw invalid();
    offsetMinutes = (zone.startsWith("-") ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const date = new Date(0);
  date.setUTCFullYear(year!, month! - 1, day!); // setUTCFullYear keeps years < 100 literal
  // A day that rolled over (e.g. 2024-02-30) is not a calendar date.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day) throw invalid();
  date.setUTCHours(hour!, minute!, second!, millis);
  return new Date(date.getTime() - offsetMinutes * 60_000);
};

const MAX_BIGINT = 2n ** 63n - 1n;

export const parseSize: ValueParser<bigint> = (value, field) => {
  if (/^\d+$/.test(value.text)) {
    const size = BigInt(value.text);
    if (size <= MAX_BIGINT) return size;
  }
  throw invalidValue(value, field, "expected a non-negative integer number of bytes");
};

/** Literal string (no wildcards); `*` must be escaped inside quotes to be literal. */
export const parseLiteralString: ValueParser<string> = (value, field) => {
  if (hasWildcard(value)) {
    throw filterError(
      value.pos,
      `wildcards (*) are not supported here for field ${show(field)}; they work only with == and != on ${STRING_FIELDS.join(", ")} (write \\* inside quotes for a literal asterisk)`,
    );
  }
  return value.text;
};
