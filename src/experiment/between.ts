export { between } from '../policy/schema/between.js';
