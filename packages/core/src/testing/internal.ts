export { ToolmarkImpl, ToolmarkImpl as ToolmarkImplClass } from '../toolmark.ts'
