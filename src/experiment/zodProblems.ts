export { zodProblems } from '../policy/schema/zodProblems.js';
