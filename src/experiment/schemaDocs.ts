export { doc, schemaDocs, type SchemaDoc } from '../policy/schema/schemaDocs.js';
