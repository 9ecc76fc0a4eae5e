export { describeValue } from '../policy/schema/describeValue.js';
