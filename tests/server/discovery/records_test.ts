import assert from "node:assert/strict";
import {
  instancesOf,
  labelOf,
  MAX_TXT_BYTES,
  MAX_TXT_KEY,
  txtBytes,
  txtOf,
  txtStrings,
} from "../../../server/discovery/records.ts";

const ports = { http: 17736, ws: 17734, osc: 17735, oscQuery: 17737 };
const info = (hostname: string) => ({
  apiVersion: "6.0",
  appVersion: "0.1.0",
  hostname,
  platform: "linux",
  ports,
  wsPath: "/v1",
});

Deno.test("records: TXT keys of at most 9 characters, the record under 200 bytes", () => {
  const txt = txtOf(info("show"));
  assert.ok(Object.keys(txt).every((key) => key.length <= MAX_TXT_KEY));
  assert.equal(txt.oscqPort, "17737");
  assert.ok(txtBytes(txt) < 200);
  // A 63-character hostname is cut so the record still fits.
  const long = txtOf(info("h".repeat(63)));
  assert.ok(txtBytes(long) <= MAX_TXT_BYTES);
  assert.throws(() => txtStrings({ tenletters: "x" }), /over 9/);
});

Deno.test("records: instance names, the OSCQuery one only with its port, conflict suffixes", () => {
  const set = { hostname: "show", ports: { http: 1, ws: 2, osc: 3 }, txt: {} };
  assert.deepEqual(instancesOf("Cueport", set).map((i) => [i.type, i.baseName, i.port]), [
    ["_app._tcp", "Cueport - show", 2],
    ["_http._tcp", "Cueport HTTP - show", 1],
  ]);
  const withQuery = instancesOf("Cueport", { ...set, ports: { ...set.ports, oscQuery: 4 } });
  assert.deepEqual(withQuery[2], {
    type: "_oscjson._tcp",
    baseName: "Cueport OSCQuery - show",
    port: 4,
  });
  const withMidi = instancesOf("Cueport", { ...set, ports: { ...set.ports, appleMidi: 5004 } });
  assert.deepEqual(withMidi[2], {
    type: "_apple-midi._udp",
    baseName: "Cueport - show",
    port: 5004,
  });
  assert.equal(labelOf("Cueport - show", 1), "Cueport - show");
  assert.equal(labelOf("Cueport - show", 2), "Cueport - show (2)");
  assert.equal(labelOf("x".repeat(63), 3).length, 63);
});
