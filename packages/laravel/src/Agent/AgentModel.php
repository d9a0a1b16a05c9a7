<?php

namespace Toolmark\Laravel\Agent;

/** The agent loop's model: one assistant turn from a provider (bind your own to replace the OpenAI-compatible one). */
interface AgentModel
{
    /**
     * One assistant turn.
     *
     * @param list<array<string, mixed>> $messages provider-neutral history
     * @param list<array<string, mixed>> $tools
     * @return array{text: string, tool_calls: list<array{id: string, name: string, input: array<string, mixed>}>}
     */
    public function complete(string $system, array $messages, array $tools): array;
}
