export { nearestName } from '../policy/schema/nearestName.js';
