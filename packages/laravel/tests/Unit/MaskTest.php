<?php

namespace Toolmark\Laravel\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Toolmark\Laravel\Mask;

final class MaskTest extends TestCase
{
    public function test_card_numbers_keep_their_last_four_digits_and_cvcs_are_hidden(): void
    {
        $this->assertSame('update my card to **** 4242 cvc *** expiry 12/30', Mask::text('update my card to 4242 4242 4242 4242 cvc 123 expiry 12/30'));
        $this->assertSame('number **** 4444, CVC: ***', Mask::text('number 5555-5555-5555-4444, CVC: 987'));
    }

    public function test_dates_distances_and_uuids_are_left_alone(): void
    {
        $text = 'Run 42 km on 12/30, id 12345678-1234-4123-8123-123456789abc';
        $this->assertSame($text, Mask::text($text));
    }

    public function test_values_are_masked_deeply_and_cvc_keys_redacted(): void
    {
        $this->assertSame(
            ['card' => ['number' => '**** 1111', 'cvc' => '[redacted]', 'securityCode' => '[redacted]'], 'n' => 3],
            Mask::value(['card' => ['number' => '4111111111111111', 'cvc' => '123', 'securityCode' => 999], 'n' => 3]),
        );
    }
}
