import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
// @ts-types="npm:ajv@8.20.0/dist/2020.d.ts"
import { Ajv2020 } from "ajv/dist/2020.js";
import { startTestService } from "../../../tools/testing/service.ts";

/** Every JSON Schema in the document: request bodies, responses, parameters, components. */
function schemasOf(
  doc: { paths: unknown; components?: { schemas?: Record<string, unknown> } },
): Array<{ where: string; schema: unknown }> {
  const found: Array<{ where: string; schema: unknown }> = [];
  const walk = (node: unknown, where: string) => {
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "schema") found.push({ where: `${where}.schema`, schema: value });
      else walk(value, `${where}.${key}`);
    }
  };
  walk(doc.paths, "paths");
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    found.push({ where: `components.schemas.${name}`, schema });
  }
  return found;
}

Deno.test("GET /api/v1/openapi.json is a valid OpenAPI 3.1 document with valid JSON Schemas", async () => {
  const svc = await startTestService();
  try {
    const { body: doc } = await svc.get("/api/v1/openapi.json");
    // The document's structure, by a maintained OpenAPI validator.
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    // Each schema against the JSON Schema 2020-12 meta-schema (OpenAPI 3.1's dialect), which the
    // OpenAPI validator does not descend into.
    const ajv = new Ajv2020({ strict: false });
    const invalid = schemasOf(doc).filter(({ schema }) => !ajv.validateSchema(schema as object))
      .map(({ where }) => `${where}: ${ajv.errorsText(ajv.errors)}`);
    assert.deepEqual(invalid, []);
    assert.deepEqual(doc.servers, [{ url: "/", description: "This Cueport service" }]);
    const action = doc.paths["/api/v1/action"].post;
    for (const status of ["405", "413", "422", "429"]) assert.ok(action.responses[status], status);
    assert.ok(doc.paths["/api/v1/files/upload"].post.responses["415"]);
    // A thumbnail by each extension the route serves, each answering its own format first.
    for (
      const [ext, type] of [
        ["jpg", "image/jpeg"],
        ["jpeg", "image/jpeg"],
        ["png", "image/png"],
      ] as const
    ) {
      const thumbnail = doc.paths[`/thumbnails/{projectId}/{fileId}.${ext}`]?.get;
      assert.ok(thumbnail, ext);
      assert.equal(Object.keys(thumbnail.responses["200"].content)[0], type, ext);
      assert.ok(thumbnail.responses["400"], ext);
    }
  } finally {
    await svc.stop();
  }
});
