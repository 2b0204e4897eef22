/**
 * HTML character references (`&amp;`, `&#8364;`, `&copy`) decoded by a small built-in decoder:
 * numeric references, the HTML 4 set and common HTML 5 names. The `he` package is only in the tree
 * as a dev dependency of s3rver, so importing it here would break production installs
 * (`npm ci --omit=dev`).
 */

// HTML 4 Latin-1 names, U+00A0..U+00FF in order.
const LATIN1_NAMES =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute " +
  "micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig " +
  "Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash " +
  "Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc " +
  "euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml " +
  "yacute thorn yuml";

// The rest of HTML 4 (special and symbol sets, with HTML 5's lang/rang) and frequent HTML 5 names.
const OTHER_NAMES =
  "quot:34 amp:38 lt:60 gt:62 apos:39 QUOT:34 AMP:38 LT:60 GT:62 COPY:169 REG:174 " +
  "OElig:338 oelig:339 Scaron:352 scaron:353 Yuml:376 fnof:402 circ:710 tilde:732 ensp:8194 emsp:8195 thinsp:8201 " +
  "zwnj:8204 zwj:8205 lrm:8206 rlm:8207 ndash:8211 mdash:8212 lsquo:8216 rsquo:8217 sbquo:8218 ldquo:8220 " +
  "rdquo:8221 bdquo:8222 dagger:8224 Dagger:8225 bull:8226 hellip:8230 permil:8240 prime:8242 Prime:8243 " +
  "lsaquo:8249 rsaquo:8250 oline:8254 frasl:8260 euro:8364 image:8465 weierp:8472 real:8476 trade:8482 " +
  "alefsym:8501 larr:8592 uarr:8593 rarr:8594 darr:8595 harr:8596 crarr:8629 lArr:8656 uArr:8657 rArr:8658 " +
  "dArr:8659 hArr:8660 forall:8704 part:8706 exist:8707 empty:8709 nabla:8711 isin:8712 notin:8713 ni:8715 " +
  "prod:8719 sum:8721 minus:8722 lowast:8727 radic:8730 prop:8733 infin:8734 ang:8736 and:8743 or:8744 cap:8745 " +
  "cup:8746 int:8747 there4:8756 sim:8764 cong:8773 asymp:8776 ne:8800 equiv:8801 le:8804 ge:8805 sub:8834 " +
  "sup:8835 nsub:8836 sube:8838 supe:8839 oplus:8853 otimes:8855 perp:8869 sdot:8901 lceil:8968 rceil:8969 " +
  "lfloor:8970 rfloor:8971 lang:10216 rang:10217 loz:9674 spades:9824 clubs:9827 hearts:9829 diams:9830 " +
  "thetasym:977 upsih:978 piv:982 " +
  "Tab:9 NewLine:10 excl:33 num:35 dollar:36 percnt:37 lpar:40 rpar:41 ast:42 plus:43 comma:44 period:46 sol:47 " +
  "colon:58 semi:59 equals:61 quest:63 commat:64 lsqb:91 lbrack:91 bsol:92 rsqb:93 rbrack:93 Hat:94 lowbar:95 " +
  "grave:96 lcub:123 lbrace:123 verbar:124 vert:124 rcub:125 rbrace:125 half:189 centerdot:183 hyphen:8208 " +
  "dash:8208 horbar:8213 Vert:8214 nldr:8229 mldr:8230 bullet:8226 lsquor:8218 rsquor:8217 ldquor:8222 " +
  "rdquor:8221 ZeroWidthSpace:8203 NoBreak:8288 TRADE:8482 copysr:8471 incare:8453 numero:8470 " +
  "frac13:8531 frac23:8532 frac15:8533 frac25:8534 frac35:8535 frac45:8536 frac16:8537 frac56:8538 frac18:8539 " +
  "frac38:8540 frac58:8541 frac78:8542 check:10003 checkmark:10003 cross:10007 star:9734 starf:9733 " +
  "bigstar:9733 phone:9742 female:9792 male:9794 flat:9837 natural:9838 sharp:9839 " +
  "iff:8660 rarrw:8605 heartsuit:9829 spadesuit:9824 clubsuit:9827 " +
  "diamondsuit:9830 sung:9834 pm:177 PlusMinus:177 " +
  "leq:8804 geq:8805 approx:8776 ";

const GREEK =
  "Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho _ Sigma Tau Upsilon " +
  "Phi Chi Psi Omega";

const NAMED: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  LATIN1_NAMES.split(" ").forEach((name, i) => map.set(name, String.fromCharCode(0xa0 + i)));
  GREEK.split(" ").forEach((name, i) => {
    if (name === "_") return;
    map.set(name, String.fromCharCode(0x391 + i));
    map.set(name.toLowerCase(), String.fromCharCode(0x3b1 + i));
  });
  map.set("sigmaf", "\u03c2");
  for (const pair of OTHER_NAMES.trim().split(/\s+/)) {
    const [name, code] = pair.split(":");
    map.set(name!, String.fromCodePoint(Number(code)));
  }
  return map;
})();

/** Names the HTML parser also accepts without the trailing ";" (legacy; all HTML 4 Latin-1 plus a few). */
const LEGACY: ReadonlySet<string> = new Set([...LATIN1_NAMES.split(" "), "quot", "amp", "lt", "gt", "QUOT", "AMP", "LT", "GT", "COPY", "REG"]);

/** Windows-1252 meanings of C1 numeric references (&#128; is "€"), as the HTML spec requires. */
export const C1: Record<number, number> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02c6,
  0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201c,
  0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc, 0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a,
  0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

/** Every name decodeEntities knows (for tests against a reference decoder). */
export function entityNames(): string[] {
  return [...NAMED.keys()];
}

const REFERENCE = /&(?:#[xX]([0-9a-fA-F]{1,8});?|#([0-9]{1,10});?|([a-zA-Z][a-zA-Z0-9]{1,31})(;?))/g;

/**
 * Decodes character references: all numeric ones (with the HTML spec's replacements) and the
 * named ones in the table above. Unknown names stay as written. In attribute values a legacy name
 * without ";" followed by a letter, digit or "=" is left alone (`?a=1&copy=2`).
 */
export function decodeEntities(text: string, inAttribute: boolean): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole: string, hex?: string, dec?: string, name?: string, semi?: string, offset?: number) => {
    if (hex !== undefined || dec !== undefined) return codePoint(hex !== undefined ? parseInt(hex, 16) : Number(dec));
    if (semi) {
      const value = NAMED.get(name!);
      if (value !== undefined) return value;
    }
    // Without ";": the longest legacy name that prefixes the run of letters (&copy2024 -> ©2024).
    for (let len = Math.min(name!.length, 6); len >= 2; len--) {
      const prefix = name!.slice(0, len);
      if (!LEGACY.has(prefix)) continue;
      const next = len < name!.length ? name![len]! : (text[offset! + whole.length] ?? "");
      if (inAttribute && /[a-zA-Z0-9=]/.test(next)) return whole;
      return NAMED.get(prefix)! + whole.slice(1 + len);
    }
    return whole;
  });
}

function codePoint(n: number): string {
  if (n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) || !Number.isFinite(n)) return "\ufffd";
  return String.fromCodePoint(C1[n] ?? n);
}
