import { describe, expect, it } from "vitest";
import { checkAddress, classifyAddress, hostLiteral } from "./address-policy";

// Pure classification: no traffic is sent anywhere.

const deniedAlways: Array<[string, string]> = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["::", "unspecified"],
  ["255.255.255.255", "broadcast"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["ff02::1", "multicast"],
  ["192.0.2.1", "reserved"],
  ["198.18.0.1", "reserved"],
  ["240.0.0.1", "reserved"],
  ["2001:db8::1", "reserved"],
  ["2002:7f00:1::1", "6to4"],
  ["2002:0808:0808::1", "6to4"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
  ["100::1", "discard"],
  ["fec0::1", "deprecatedSiteLocal"],
  ["64:ff9b:1::a00:1", "rfc6052"],
  ["::7f00:1", "ipv4Compatible"],
  ["::8.8.8.8", "ipv4Compatible"],
  ["4000::1", "unallocated"],
  ["::ffff:0.0.0.0", "unspecified"],
  ["::ffff:224.0.0.1", "multicast"],
  ["not-an-ip", "invalid"],
  ["2130706433", "invalid"],
  ["0x7f.0.0.1", "invalid"],
  ["127.1", "invalid"],
];

const privateRanges: Array<[string, string]> = [
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["::1", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "linkLocal"],
  ["fe80::1", "linkLocal"],
  ["fe80::1%eth0", "linkLocal"],
  ["100.64.0.1", "carrierGradeNat"],
  ["100.127.255.254", "carrierGradeNat"],
  ["fc00::1", "uniqueLocal"],
  ["fd12:3456::1", "uniqueLocal"],
  // Embedded IPv4 is judged by the IPv4 address.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:a9fe:a9fe", "linkLocal"],
  ["::ffff:0:7f00:1", "loopback"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::192.168.0.1", "private"],
];

const publicAddresses = ["8.8.8.8", "1.1.1.1", "93.184.215.14", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"];

describe("checkAddress", () => {
  it.each(deniedAlways)("always denies %s (%s)", (address, range) => {
    for (const allowPrivate of [false, true]) {
      const verdict = checkAddress(address, allowPrivate);
      expect(verdict.allowed).toBe(false);
      expect(verdict.range).toBe(range);
    }
  });

  it.each(privateRanges)("denies %s (%s) by default, allows it with allowPrivateNetworks", (address, range) => {
    const denied = checkAddress(address, false);
    expect(denied).toMatchObject({ allowed: false, range });
    expect(checkAddress(address, true)).toMatchObject({ allowed: true, range });
  });

  it.each(publicAddresses)("allows public %s", (address) => {
    expect(checkAddress(address, false)).toMatchObject({ allowed: true, range: "unicast" });
  });

  it("names the reason and the embedded address", () => {
    const v = checkAddress("::ffff:7f00:1", false);
    expect(v.allowed).toBe(false);
    if (!v.allowed) expect(v.reason).toBe("::ffff:7f00:1 (IPv4-mapped 127.0.0.1) is a loopback address, which is not allowed");
    const meta = checkAddress("169.254.169.254", false);
    if (!meta.allowed) expect(meta.reason).toMatch(/link-local/);
  });
});

describe("classifyAddress", () => {
  it("reports the effective IPv4 behind NAT64 and mapped forms", () => {
    expect(classifyAddress("64:ff9b::7f00:1")).toEqual({ range: "loopback", effective: "127.0.0.1", embedding: "NAT64" });
    expect(classifyAddress("::ffff:127.0.0.1")).toMatchObject({ effective: "127.0.0.1", embedding: "IPv4-mapped" });
  });
});

describe("hostLiteral (after WHATWG URL normalisation)", () => {
  it.each([
    ["http://2130706433/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://0/", "0.0.0.0"],
    ["http://[::]/", "::"],
    ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1"],
  ])("%s is the IP literal %s and is denied", (url, host) => {
    expect(hostLiteral(new URL(url))).toEqual({ host, isIp: true });
    expect(checkAddress(host, false).allowed).toBe(false);
  });

  it("treats names as names", () => {
    expect(hostLiteral(new URL("http://example.com/"))).toEqual({ host: "example.com", isIp: false });
    expect(hostLiteral(new URL("http://127.0.0.1.nip.io/"))).toEqual({ host: "127.0.0.1.nip.io", isIp: false });
  });
});
