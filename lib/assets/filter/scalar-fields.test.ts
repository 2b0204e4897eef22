import { describe, expect, it } from "vitest";
import { parseAssetFilter } from "@/lib/assets/filter";
import { F1, F2, expectInvalid } from "@/lib/assets/filter/test-helpers";

describe("enum fields", () => {
  it("status: ==, !=, =in=, =out=", () => {
    expect(parseAssetFilter("status==approved")).toEqual({ status: "approved" });
    expect(parseAssetFilter("status!=approved")).toEqual({ status: { not: "approved" } });
    expect(parseAssetFilter("status=in=(approved,pending)")).toEqual({ status: { in: ["approved", "pending"] } });
    expect(parseAssetFilter("status=out=(uploading,error)")).toEqual({ status: { notIn: ["uploading", "error"] } });
  });

  it("accepts every status value, quoted or not", () => {
    for (const status of ["uploading", "pending", "approved", "rejected", "error"]) {
      expect(parseAssetFilter(`status==${status}`)).toEqual({ status });
      expect(parseAssetFilter(`status=='${status}'`)).toEqual({ status });
    }
  });

  it("translates hyphenated asset types to the Prisma enum members", () => {
    expect(parseAssetFilter("type==plaintext-document")).toEqual({ type: "plaintext_document" });
    expect(parseAssetFilter("type==multimedia-document")).toEqual({ type: "multimedia_document" });
    expect(parseAssetFilter("type=in=(image,video,audio,website,file)")).toEqual({
      type: { in: ["image", "video", "audio", "website", "file"] },
    });
    expect(parseAssetFilter("type=out=(plaintext-document,multimedia-document)")).toEqual({
      type: { notIn: ["plaintext_document", "multimedia_document"] },
    });
  });

  it("rejects the Prisma spelling of asset types", () => {
    expectInvalid(
      "type==plaintext_document",
      'Invalid filter at position 7: invalid value "plaintext_document" for field "type"; expected one of: image, video, audio, plaintext-document, multimedia-document, website, file',
    );
  });

  it("rejects unknown enum values and ordering operators", () => {
    expectInvalid("status==Approved", 'invalid value "Approved" for field "status"', "uploading, pending, approved, rejected, error");
    expectInvalid("status==appr*", "wildcards (*) are only supported for name, externalId, fileFormat, fileExtension");
    expectInvalid("status=lt=approved", 'position 7: operator "=lt=" is not supported for field "status"; supported operators: ==, !=, =in=, =out=');
    expectInvalid("type>image", 'operator ">" is not supported for field "type"');
  });

  it("rejects null for status and type, which are never null", () => {
    expectInvalid("status==null", 'position 9: field "status" is never null');
    expectInvalid("type=in=(image,null)", 'field "type" is never null');
  });

  it("visibility and moderationAction: null, and null-aware negation", () => {
    expect(parseAssetFilter("visibility==public")).toEqual({ visibility: "public" });
    expect(parseAssetFilter("visibility==null")).toEqual({ visibility: null });
    expect(parseAssetFilter("visibility!=null")).toEqual({ visibility: { not: null } });
    expect(parseAssetFilter("visibility!=private")).toEqual({ OR: [{ visibility: null }, { visibility: { not: "private" } }] });
    expect(parseAssetFilter("moderationAction=in=(hide,purge)")).toEqual({ moderationAction: { in: ["hide", "purge"] } });
    expect(parseAssetFilter("moderationAction=in=(hide,null)")).toEqual({ OR: [{ moderationAction: "hide" }, { moderationAction: null }] });
    expect(parseAssetFilter("moderationAction=in=(null)")).toEqual({ moderationAction: null });
    expect(parseAssetFilter("moderationAction=out=(ignore,alert)")).toEqual({
      OR: [{ moderationAction: null }, { moderationAction: { notIn: ["ignore", "alert"] } }],
    });
    expect(parseAssetFilter("moderationAction=out=(ignore,null)")).toEqual({ moderationAction: { notIn: ["ignore"], not: null } });
    expect(parseAssetFilter("moderationAction=out=(null)")).toEqual({ moderationAction: { not: null } });
    expectInvalid("visibility==secret", 'invalid value "secret" for field "visibility"; expected one of: public, private');
    expectInvalid("moderationAction==delete", "expected one of: ignore, alert, hide, purge");
  });

  it('treats a quoted "null" as a value, not the null keyword', () => {
    expectInvalid('visibility=="null"', 'invalid value "null" for field "visibility"');
  });
});

describe("flagged", () => {
  it("accepts true, false and null", () => {
    expect(parseAssetFilter("flagged==true")).toEqual({ flagged: true });
    expect(parseAssetFilter("flagged==false")).toEqual({ flagged: false });
    expect(parseAssetFilter("flagged==null")).toEqual({ flagged: null });
    expect(parseAssetFilter("flagged!=true")).toEqual({ OR: [{ flagged: null }, { flagged: { not: true } }] });
    expect(parseAssetFilter("flagged=in=(true,null)")).toEqual({ OR: [{ flagged: true }, { flagged: null }] });
  });

  it("rejects other values", () => {
    expectInvalid("flagged==yes", 'invalid value "yes" for field "flagged"; expected one of: true, false');
    expectInvalid("flagged==TRUE", 'invalid value "TRUE"');
    expectInvalid("flagged==1", 'invalid value "1"');
    expectInvalid("flagged=gt=false", 'operator "=gt=" is not supported for field "flagged"');
  });
});

describe("UUID fields", () => {
  it("folderId and parentId: ==, !=, =in=, =out= and null", () => {
    expect(parseAssetFilter(`folderId==${F1}`)).toEqual({ folderId: F1 });
    expect(parseAssetFilter("folderId==null")).toEqual({ folderId: null });
    expect(parseAssetFilter("parentId!=null")).toEqual({ parentId: { not: null } });
    expect(parseAssetFilter(`parentId!=${F1}`)).toEqual({ OR: [{ parentId: null }, { parentId: { not: F1 } }] });
    expect(parseAssetFilter(`folderId=in=(${F1},${F2})`)).toEqual({ folderId: { in: [F1, F2] } });
    expect(parseAssetFilter(`folderId=in=(${F1},null)`)).toEqual({ OR: [{ folderId: F1 }, { folderId: null }] });
    expect(parseAssetFilter(`folderId=out=(${F1},${F2})`)).toEqual({ OR: [{ folderId: null }, { folderId: { notIn: [F1, F2] } }] });
  });

  it("normalises UUIDs to lower case", () => {
    expect(parseAssetFilter(`folderId==${F2.toUpperCase()}`)).toEqual({ folderId: F2 });
  });

  it("rejects malformed UUIDs", () => {
    expectInvalid("folderId==abc", 'position 11: invalid value "abc" for field "folderId"; expected a UUID or null');
    expectInvalid(`parentId==${F1}0`, 'for field "parentId"');
    expectInvalid(`folderId=in=(${F1},nope)`, 'invalid value "nope"');
    expectInvalid("folderId==*", 'invalid value "*"');
    expectInvalid(`folderId=gt=${F1}`, 'operator "=gt=" is not supported for field "folderId"');
  });
});

describe("dates", () => {
  it("accepts milliseconds since the epoch", () => {
    expect(parseAssetFilter("createdAt==1714521600000")).toEqual({ createdAt: new Date(1714521600000) });
    expect(parseAssetFilter("createdAt>0")).toEqual({ createdAt: { gt: new Date(0) } });
    expect(parseAssetFilter("updatedAt<-1000")).toEqual({ updatedAt: { lt: new Date(-1000) } });
  });

  it("accepts ISO-8601 date-times with a zone", () => {
    const expected = { createdAt: { gte: new Date("2024-05-01T10:20:30.000Z") } };
    expect(parseAssetFilter("createdAt=ge=2024-05-01T10:20:30Z")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01T10:20:30.000Z")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01T12:20:30+02:00")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01T05:50:30-04:30")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge='2024-05-01T10:20:30Z'")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01t10:20:30z")).toEqual(expected);
  });

  it("handles optional seconds and fractions", () => {
    expect(parseAssetFilter("updatedAt<2024-05-01T10:20Z")).toEqual({ updatedAt: { lt: new Date("2024-05-01T10:20:00Z") } });
    expect(parseAssetFilter("updatedAt<2024-05-01T10:20:30.5Z")).toEqual({ updatedAt: { lt: new Date("2024-05-01T10:20:30.500Z") } });
    expect(parseAssetFilter("updatedAt<2024-05-01T10:20:30.123456Z")).toEqual({ updatedAt: { lt: new Date("2024-05-01T10:20:30.123Z") } });
  });

  it("reads a bare date as UTC midnight", () => {
    expect(parseAssetFilter("createdAt=lt=2024-05-01")).toEqual({ createdAt: { lt: new Date("2024-05-01T00:00:00Z") } });
  });

  it("supports every operator", () => {
    const d1 = new Date("2024-01-01T00:00:00Z");
    const d2 = new Date("2024-02-01T00:00:00Z");
    expect(parseAssetFilter("createdAt!=2024-01-01")).toEqual({ createdAt: { not: d1 } });
    expect(parseAssetFilter("createdAt=in=(2024-01-01,2024-02-01T00:00:00Z)")).toEqual({ createdAt: { in: [d1, d2] } });
    expect(parseAssetFilter(`createdAt=out=(${d1.getTime()},${d2.getTime()})`)).toEqual({ createdAt: { notIn: [d1, d2] } });
    expect(parseAssetFilter("createdAt>2024-01-01;createdAt<2024-02-01")).toEqual({
      AND: [{ createdAt: { gt: d1 } }, { createdAt: { lt: d2 } }],
    });
  });

  it("rejects malformed and impossible dates", () => {
    const hint = "expected milliseconds since the epoch (e.g. 1714521600000) or an ISO-8601 date-time with a time zone";
    expectInvalid("createdAt>yesterday", 'position 11: invalid value "yesterday" for field "createdAt"', hint);
    expectInvalid("createdAt>2024-05-01T10:20:30", "2024-05-01T10:20:30", hint); // no zone
    expectInvalid("createdAt>2024-02-30", hint);
    expectInvalid("createdAt>2023-02-29T00:00Z", hint);
    expectInvalid("createdAt>2024-13-01", hint);
    expectInvalid("createdAt>2024-05-01T24:00:00Z", hint);
    expectInvalid("createdAt>2024-05-01T10:60Z", hint);
    expectInvalid("createdAt>2024-05-01T10:00+2400", hint);
    expectInvalid("createdAt>2024-05-01T10:00+24:00", hint);
    expectInvalid("createdAt>1.5", hint);
    expectInvalid("createdAt>99999999999999999", hint);
    expectInvalid("createdAt>8640000000000001", hint);
    expectInvalid("updatedAt==2024-05-01 10:00:00Z", 'found "10:00:00Z"');
  });

  it("accepts a leap day", () => {
    expect(parseAssetFilter("createdAt>2024-02-29")).toEqual({ createdAt: { gt: new Date("2024-02-29T00:00:00Z") } });
  });

  it("rejects null, which dates never are", () => {
    expectInvalid("createdAt==null", 'field "createdAt" is never null');
    expectInvalid("updatedAt>null", "null cannot be compared");
  });
});

describe("sizeInBytes", () => {
  it("translates to BigInt comparisons", () => {
    expect(parseAssetFilter("sizeInBytes==1024")).toEqual({ sizeInBytes: 1024n });
    expect(parseAssetFilter("sizeInBytes>1048576")).toEqual({ sizeInBytes: { gt: 1048576n } });
    expect(parseAssetFilter("sizeInBytes=ge=0")).toEqual({ sizeInBytes: { gte: 0n } });
    expect(parseAssetFilter("sizeInBytes<=9223372036854775807")).toEqual({ sizeInBytes: { lte: 9223372036854775807n } });
    expect(parseAssetFilter("sizeInBytes=in=(1,2)")).toEqual({ sizeInBytes: { in: [1n, 2n] } });
    expect(parseAssetFilter("sizeInBytes!=5")).toEqual({ OR: [{ sizeInBytes: null }, { sizeInBytes: { not: 5n } }] });
  });

  it("supports null (size unknown while uploading)", () => {
    expect(parseAssetFilter("sizeInBytes==null")).toEqual({ sizeInBytes: null });
    expect(parseAssetFilter("sizeInBytes!=null")).toEqual({ sizeInBytes: { not: null } });
    expectInvalid("sizeInBytes>null", 'position 13: null cannot be compared with ">"; use ==null or !=null');
  });

  it("rejects non-integers, negatives and values beyond 64 bits", () => {
    const hint = "expected a non-negative integer number of bytes";
    expectInvalid("sizeInBytes>1.5", 'invalid value "1.5" for field "sizeInBytes"', hint);
    expectInvalid("sizeInBytes>-1", hint);
    expectInvalid("sizeInBytes>1e6", hint);
    expectInvalid("sizeInBytes>big", hint);
    expectInvalid("sizeInBytes>9223372036854775808", hint);
  });
});
