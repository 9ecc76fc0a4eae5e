/** The field builders live with the one validator of a policy (src/policy/schema); experiment schemas use them from here. */
export { fields, UNKNOWN_KEYS_MARK, type NumberRule } from '../policy/schema/fields.js';
